// run() and run_streaming(): a child's stdin fed and its stdout and stderr
// read together with poll(), so neither pipe can fill up and block the child.
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "util/subprocess.h"

namespace kftrain::util {
namespace {

using Clock = std::chrono::steady_clock;

// Collects one stream, handing complete lines to a callback when there is one.
class StreamSink {
  public:
    StreamSink(std::string& keep, const LineCallback& on_line) : m_keep(keep), m_on_line(on_line) {}

    void feed(const char* data, size_t size) {
        if (!m_on_line) {
            m_keep.append(data, size);
            return;
        }
        m_partial.append(data, size);
        size_t start = 0;
        for (size_t nl; (nl = m_partial.find('\n', start)) != std::string::npos; start = nl + 1) {
            m_on_line(m_partial.substr(start, nl - start));
        }
        m_partial.erase(0, start);
    }

    void finish() {
        if (m_on_line && !m_partial.empty()) {
            m_on_line(m_partial);
            m_partial.clear();
        }
    }

  private:
    std::string& m_keep;
    const LineCallback& m_on_line;
    std::string m_partial;
};

// Write to a pipe without letting a closed reader raise SIGPIPE in this process:
// the signal is blocked for this thread during the write and a pending one is
// consumed, so the write just fails with EPIPE.
ssize_t write_no_sigpipe(int fd, const char* data, size_t size) {
    sigset_t pipe_set;
    sigset_t old_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
    ssize_t n = ::write(fd, data, size);
    int saved = errno;
    if (n < 0 && saved == EPIPE) {
        timespec zero{0, 0};
        while (sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
    errno = saved;
    return n;
}

// How long one poll() may wait: until the deadline, and at most 100 ms when a cancel flag
// must be looked at (-1: no limit).
int poll_timeout_ms(const std::optional<Clock::time_point>& deadline, bool cancellable) {
    constexpr int k_cancel_check_ms = 100;
    if (!deadline) {
        return cancellable ? k_cancel_check_ms : -1;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now());
    const int ms = left.count() < 0 ? 0 : static_cast<int>(left.count());
    return cancellable ? std::min(ms, k_cancel_check_ms) : ms;
}

}  // namespace

Result<RunResult> run_streaming(const RunOptions& options, const LineCallback& on_out,
                                const LineCallback& on_err) {
    SpawnOptions spawn;
    spawn.argv = options.argv;
    spawn.env = options.env;
    spawn.stdin_from = options.input.empty() ? Redirect::null() : Redirect::pipe();
    auto started = Process::spawn(spawn);
    if (!started) {
        return Error{started.error()};
    }
    Process proc = std::move(started.value());

    RunResult result;
    StreamSink out(result.out, on_out);
    StreamSink err(result.err, on_err);
    size_t written = 0;
    std::optional<Clock::time_point> deadline;
    if (options.timeout) {
        deadline = Clock::now() + *options.timeout;
    }

    int out_fd = proc.stdout_fd();
    int err_fd = proc.stderr_fd();
    char buffer[65536];
    while (out_fd >= 0 || err_fd >= 0) {
        std::vector<pollfd> fds;
        if (out_fd >= 0) {
            fds.push_back({out_fd, POLLIN, 0});
        }
        if (err_fd >= 0) {
            fds.push_back({err_fd, POLLIN, 0});
        }
        if (proc.stdin_fd() >= 0) {
            fds.push_back({proc.stdin_fd(), POLLOUT, 0});
        }
        int ready =
            ::poll(fds.data(), fds.size(), poll_timeout_ms(deadline, options.cancel != nullptr));
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (options.cancel != nullptr && options.cancel->load()) {
            proc.signal(SIGKILL);
            result.cancelled = true;
            break;
        }
        if (ready == 0 && deadline && Clock::now() >= *deadline) {
            proc.signal(SIGKILL);
            result.timed_out = true;
            break;
        }
        for (const auto& p : fds) {
            if (p.revents == 0) {
                continue;
            }
            if (p.fd == proc.stdin_fd()) {
                ssize_t n = write_no_sigpipe(p.fd, options.input.data() + written,
                                             options.input.size() - written);
                if (n > 0) {
                    written += static_cast<size_t>(n);
                }
                if (n < 0 && errno != EAGAIN && errno != EINTR) {
                    proc.close_stdin();  // the child stopped reading: not our error
                } else if (written == options.input.size()) {
                    proc.close_stdin();
                }
                continue;
            }
            ssize_t n = ::read(p.fd, buffer, sizeof buffer);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
                continue;
            }
            if (n <= 0) {
                (p.fd == out_fd ? out_fd : err_fd) = -1;
                continue;
            }
            (p.fd == out_fd ? out : err).feed(buffer, static_cast<size_t>(n));
        }
    }
    proc.close_stdin();
    out.finish();
    err.finish();
    auto status = proc.wait();
    if (!status) {
        return Error{status.error()};
    }
    result.status = *status;
    return result;
}

Result<RunResult> run(const RunOptions& options) {
    return run_streaming(options, LineCallback{}, LineCallback{});
}

}  // namespace kftrain::util
