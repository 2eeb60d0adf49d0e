#include "staging/stream_pipe.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <optional>

namespace kftrain::staging {
namespace {

constexpr size_t k_err_keep = 64 * 1024;
constexpr int k_check_ms = 100;

util::Result<util::Process> start(const std::vector<std::string>& argv, bool reads) {
    util::SpawnOptions options;
    options.argv = argv;
    options.stdin_from = reads ? util::Redirect::pipe() : util::Redirect::null();
    options.stdout_to = reads ? util::Redirect::null() : util::Redirect::pipe();
    options.stderr_to = util::Redirect::pipe();
    options.own_group = true;
    return util::Process::spawn(options);
}

void keep_tail(std::string& kept, const char* data, size_t size) {
    kept.append(data, size);
    if (kept.size() > k_err_keep) {
        kept.erase(0, kept.size() - k_err_keep);
    }
}

// The loop moving from's stdout into to's stdin (or into consume), draining both stderrs.
class Pipeline {
  public:
    Pipeline(const PipeEnds& ends, util::Process& from, util::Process* to, PipeResult& result)
        : m_ends(ends), m_from(from), m_to(to), m_result(result) {
        m_out = from.stdout_fd();
        m_errs[0] = from.stderr_fd();
        if (to != nullptr) {
            m_in = to->stdin_fd();
            m_errs[1] = to->stderr_fd();
            ::fcntl(m_in, F_SETFL, ::fcntl(m_in, F_GETFL) | O_NONBLOCK);
        }
        m_last_move = std::chrono::steady_clock::now();
    }

    void loop() {
        while (m_out >= 0 || m_errs[0] >= 0 || m_errs[1] >= 0 || m_in >= 0) {
            if (should_stop()) {
                kill_both();
                return;
            }
            if (m_out < 0 && m_pending.empty() && m_in >= 0) {
                m_to->close_stdin();  // all passed: to sees the end of its input
                m_in = -1;
            }
            std::vector<pollfd> fds;
            if (m_out >= 0 && m_pending.empty()) {
                fds.push_back({m_out, POLLIN, 0});
            }
            if (m_in >= 0 && !m_pending.empty()) {
                fds.push_back({m_in, POLLOUT, 0});
            }
            for (int fd : m_errs) {
                if (fd >= 0) {
                    fds.push_back({fd, POLLIN, 0});
                }
            }
            if (fds.empty()) {
                break;
            }
            if (::poll(fds.data(), fds.size(), k_check_ms) <= 0) {
                continue;
            }
            for (const auto& p : fds) {
                if (p.revents != 0) {
                    move(p.fd);
                }
            }
        }
    }

  private:
    bool should_stop() {
        if (m_ends.cancelled && m_ends.cancelled()) {
            m_result.cancelled = true;
            return true;
        }
        if (m_ends.stall_limit && m_out >= 0 &&
            std::chrono::steady_clock::now() - m_last_move > *m_ends.stall_limit) {
            m_result.stalled = true;
            return true;
        }
        return false;
    }

    void kill_both() {
        for (util::Process* p : {&m_from, m_to}) {
            if (p != nullptr) {
                p->signal(SIGKILL);
                p->signal_group(SIGKILL);
            }
        }
    }

    void move(int fd) {
        if (fd == m_in) {
            write_pending();
            return;
        }
        char buffer[65536];
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            return;
        }
        if (fd == m_out) {
            if (n <= 0) {
                m_out = -1;
            } else if (m_to != nullptr) {
                m_pending.assign(buffer, static_cast<size_t>(n));
            } else {
                consume(buffer, static_cast<size_t>(n));
            }
            return;
        }
        int which = fd == m_errs[0] ? 0 : 1;
        if (n <= 0) {
            m_errs[which] = -1;
            return;
        }
        keep_tail(which == 0 ? m_result.from_err : m_result.to_err, buffer, static_cast<size_t>(n));
    }

    void consume(const char* data, size_t size) {
        if (auto taken = m_ends.consume(data, size); !taken) {
            m_result.consume_error = taken.error();
            m_result.consume_code = taken.error_code(0);
            m_out = -1;
            m_from.signal(SIGKILL);
            m_from.signal_group(SIGKILL);
            return;
        }
        moved(size);
    }

    void moved(size_t size) {
        m_last_move = std::chrono::steady_clock::now();
        m_result.bytes += size;
        if (m_ends.on_bytes) {
            m_ends.on_bytes(m_result.bytes);
        }
    }

    void write_pending() {
        ssize_t n = ::write(m_in, m_pending.data(), m_pending.size());
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            return;
        }
        if (n < 0) {  // EPIPE: to stopped reading; from has no one to write to
            m_to->close_stdin();
            m_in = -1;
            m_pending.clear();
            m_from.signal(SIGKILL);
            m_from.signal_group(SIGKILL);
            return;
        }
        m_pending.erase(0, static_cast<size_t>(n));
        moved(static_cast<size_t>(n));
    }

    const PipeEnds& m_ends;
    util::Process& m_from;
    util::Process* m_to;
    PipeResult& m_result;
    int m_out = -1;
    int m_in = -1;
    int m_errs[2] = {-1, -1};
    std::string m_pending;
    std::chrono::steady_clock::time_point m_last_move;
};

}  // namespace

util::Result<PipeResult> run_pipe(const PipeEnds& ends) {
    // A reader that goes away must give a write error here, not end kftrain.
    std::signal(SIGPIPE, SIG_IGN);
    std::optional<util::Process> sink;
    if (!ends.to.empty()) {
        auto started = start(ends.to, true);
        if (!started) {
            return util::error(started.error());
        }
        sink.emplace(std::move(*started));
    }
    auto source = start(ends.from, false);
    if (!source) {
        if (sink) {
            sink->signal(SIGKILL);
            sink->wait();
        }
        return util::error(source.error());
    }
    PipeResult result;
    Pipeline pipeline(ends, *source, sink ? &*sink : nullptr, result);
    pipeline.loop();
    if (auto from_status = source->wait(); from_status) {
        result.from = *from_status;
    }
    if (sink) {
        if (auto to_status = sink->wait(); to_status) {
            result.to = *to_status;
        }
    }
    return result;
}

}  // namespace kftrain::staging
