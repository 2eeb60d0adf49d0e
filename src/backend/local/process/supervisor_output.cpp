// The supervisor's side of what its replicas say: each line into the job's logs as it comes,
// read without ever blocking (a replica that prints no newline or floods its pipe holds no
// other replica up), the lead replica's progress lines and what any replica posts to the
// job's status server kept for status.
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>

#include "backend/local/process/replica_env.h"
#include "backend/local/process/supervisor.h"
#include "backend/local/state/state_dir.h"
#include "progress/progress_line.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::backend::local {
namespace {

// A line longer than this is kept cut, with k_cut_marker after it, and the rest of it dropped:
// a replica cannot grow the supervisor, and `logs --tail N` counts the line once whatever N.
constexpr size_t k_max_line = 64 * 1024;
constexpr const char* k_cut_marker = " [kftrain: line cut at 64 KiB]";
// The most read from one stream at one turn: a replica that floods its pipe faster than the
// supervisor writes its log must not keep it from a stop request or the other replicas.
constexpr size_t k_max_read_per_turn = 1024 * 1024;

}  // namespace

void Supervisor::start_status_server() {
    auto server = StatusEndpoint::start(job_dir(m_state.name) + "/status-server",
                                        m_state.namespace_, m_state.name);
    if (!server) {
        std::cerr << "kftrain supervisor: no status server for the replicas: " << server.error()
                  << std::endl;
        return;
    }
    m_status_server = std::move(*server);
    const EndpointAddress& address = m_status_server->address();
    for (size_t i = 0; i < m_launch.size(); ++i) {
        set_status_server(m_launch[i].env, address.url, address.ca_cert, address.token_file);
        set_status_server(m_state.replicas[i].env, address.url, address.ca_cert,
                          address.token_file);
    }
}

void Supervisor::take_posted_status() {
    if (m_status_server == nullptr) {
        return;
    }
    if (auto posted = m_status_server->take_accepted()) {
        m_state.trainer_status = util::json_text(*posted);
        m_dirty = true;
    }
}

void Supervisor::emit_line(size_t i, const std::string& line) {
    const ReplicaState& replica = m_state.replicas[i];
    m_log.append(replica.name, line);
    if (is_lead_replica(replica)) {
        auto progress = progress::parse_progress_line(line);
        if (progress && progress::shows_progress(*progress)) {
            m_state.last_progress = line;
            m_dirty = true;
        } else if (progress && progress::is_checkpoint_event(*progress)) {
            m_state.last_checkpoint = line;
            m_dirty = true;
        }
    }
}

void Supervisor::read_stream(size_t i, Stream& stream) {
    char buffer[8192];
    for (size_t taken = 0; stream.open && taken < k_max_read_per_turn;) {
        ssize_t n = ::read(stream.fd, buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return;  // EAGAIN: nothing more now
        }
        if (n == 0) {
            stream.open = false;
            break;
        }
        taken += static_cast<size_t>(n);
        stream.partial.append(buffer, static_cast<size_t>(n));
        size_t start = 0;
        for (size_t nl; (nl = stream.partial.find('\n', start)) != std::string::npos;) {
            if (!stream.cutting) {
                emit_line(i, stream.partial.substr(start, nl - start));
            }
            stream.cutting = false;  // the end of the line being cut
            start = nl + 1;
        }
        stream.partial.erase(0, start);
        if (stream.cutting) {
            stream.partial.clear();
        } else if (stream.partial.size() > k_max_line) {
            std::string kept = util::excerpt(stream.partial, k_max_line);
            kept.resize(kept.size() - 3);  // excerpt's "..."
            emit_line(i, kept + k_cut_marker);
            stream.partial.clear();
            stream.cutting = true;
        }
    }
    if (!stream.open && !stream.partial.empty()) {  // the last line, without its newline
        emit_line(i, stream.partial);
        stream.partial.clear();
    }
}

void Supervisor::pump(int timeout_ms) {
    std::vector<pollfd> fds;
    std::vector<std::pair<size_t, Stream*>> owners;
    for (size_t i = 0; i < m_slots.size(); ++i) {
        for (Stream* stream : {&m_slots[i].out, &m_slots[i].err}) {
            if (stream->open) {
                fds.push_back({stream->fd, POLLIN, 0});
                owners.emplace_back(i, stream);
            }
        }
    }
    if (fds.empty()) {
        ::usleep(static_cast<useconds_t>(timeout_ms) * 1000);
        return;
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) <= 0) {
        return;
    }
    for (size_t k = 0; k < fds.size(); ++k) {
        if (fds[k].revents != 0) {
            read_stream(owners[k].first, *owners[k].second);
        }
    }
}

}  // namespace kftrain::backend::local
