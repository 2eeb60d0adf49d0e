// The supervisor's side of what its replicas say: each line into the job's logs as it comes,
// read without ever blocking (a replica that prints no newline or floods its pipe holds no
// other replica up), the lead replica's progress lines and what any replica posts to the
// job's status server kept for status.
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <iostream>

#include "backend/local/process/replica_env.h"
#include "backend/local/process/supervisor.h"
#include "backend/local/state/state_dir.h"
#include "progress/progress_line.h"
#include "util/json_text.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::backend::local {
namespace {

// A line longer than this is kept cut, with k_cut_marker after it, and the rest of it dropped:
// a replica cannot grow the supervisor, and `logs --tail N` counts the line once whatever N.
constexpr size_t k_max_line = 64 * 1024;
constexpr const char* k_cut_marker = " [kftrain: line cut at 64 KiB]";
// The most read from one stream at one turn: a replica that floods its pipe faster than the
// supervisor writes its log must not keep it from a stop request or the other replicas.
constexpr size_t k_max_read_per_turn = 1024 * 1024;
// A bar redrawn with carriage returns goes to the log at most once in this time, and as it was
// left when its line ends: `logs` shows it moving, and a bar redrawn a million times is not a
// million lines.
constexpr auto k_drawing_interval = std::chrono::seconds(1);

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

void Supervisor::read_progress(const std::string& line) {
    const auto now = std::chrono::duration<double>(Clock::now() - m_started).count();
    m_progress.take(line, now);
    if (!m_progress.changed()) {
        if (auto checkpoint = progress::parse_progress_line(line);
            checkpoint && progress::is_checkpoint_event(*checkpoint)) {
            m_state.last_checkpoint = line;
            m_dirty = true;
        }
        return;
    }
    if (m_progress.progress()->source.empty()) {
        m_state.last_progress = line;  // a progress line, kept as printed
        m_text_progress_at.reset();
    } else {
        m_text_progress_at = std::time(nullptr);  // written out at the next save, not per drawing
    }
    m_dirty = true;
}

void Supervisor::keep_text_progress() {
    if (m_text_progress_at && m_progress.progress()) {
        job::Progress shown = *m_progress.progress();
        shown.time = util::format_timestamp(*m_text_progress_at);
        m_state.last_progress = progress::progress_json(shown).dump();
        m_text_progress_at.reset();
    }
}

void Supervisor::emit_line(size_t i, const std::string& line) {
    const ReplicaState& replica = m_state.replicas[i];
    m_log.append(replica.name, line);
    if (is_lead_replica(replica)) {
        read_progress(line);
    }
}

void Supervisor::take_drawing(size_t i, Stream& stream, std::string drawing) {
    stream.redrawn = true;
    if (drawing.empty()) {
        return;
    }
    if (is_lead_replica(m_state.replicas[i])) {
        read_progress(drawing);
    }
    const auto now = Clock::now();
    if (!stream.drawing_written || now - *stream.drawing_written >= k_drawing_interval) {
        m_log.append(m_state.replicas[i].name, drawing);
        stream.drawing_written = now;
        stream.unwritten.clear();
    } else {
        stream.unwritten = std::move(drawing);
    }
}

void Supervisor::write_held_drawings() {
    const auto now = Clock::now();
    for (size_t i = 0; i < m_slots.size(); ++i) {
        for (Stream* stream : {&m_slots[i].out, &m_slots[i].err}) {
            if (!stream->unwritten.empty() &&
                (!stream->drawing_written ||
                 now - *stream->drawing_written >= k_drawing_interval)) {
                m_log.append(m_state.replicas[i].name, stream->unwritten);  // a bar that paused
                stream->unwritten.clear();
                stream->drawing_written = now;
            }
        }
    }
}

void Supervisor::end_line(size_t i, Stream& stream, std::string text) {
    if (!stream.redrawn) {
        emit_line(i, text);
    } else if (!text.empty()) {
        take_drawing(i, stream, std::move(text));
        if (!stream.unwritten.empty()) {
            m_log.append(m_state.replicas[i].name, stream.unwritten);
        }
    } else if (!stream.unwritten.empty()) {
        m_log.append(m_state.replicas[i].name, stream.unwritten);  // the bar as it was left
    }
    stream.redrawn = false;
    stream.unwritten.clear();
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
        for (size_t end;
             (end = stream.partial.find_first_of("\r\n", start)) != std::string::npos;) {
            std::string text = stream.partial.substr(start, end - start);
            if (stream.cutting) {
                text.clear();
            }
            if (stream.partial[end] == '\r') {
                take_drawing(i, stream, std::move(text));
            } else if (!stream.cutting || stream.redrawn) {
                end_line(i, stream, std::move(text));
            }
            stream.cutting = false;  // the end of the line or drawing being cut
            start = end + 1;
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
    if (!stream.open && (!stream.partial.empty() || !stream.unwritten.empty())) {
        end_line(i, stream, std::move(stream.partial));  // the last line, without its newline
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
    write_held_drawings();
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
