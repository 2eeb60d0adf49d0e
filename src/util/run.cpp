// run() and run_streaming(): a child's stdin fed and its stdout and stderr
// read together with poll(), so neither pipe can fill up and block the child; the child's
// whole process group ended at the deadline, on cancel, and when what it left behind holds
// its output open after it ended.
#include "util/run.h"

#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace kftrain::util {
namespace {

using Clock = std::chrono::steady_clock;

// Collects one stream, handing complete lines to a callback when there is one. Keeps at most
// `limit` bytes: past it, feed() says so (stdout: the caller stops the child) or, when
// `drop` is set, the rest is counted and dropped (stderr).
class StreamSink {
  public:
    StreamSink(std::string& keep, const LineCallback& on_line, size_t limit, bool drop)
        : m_keep(keep), m_on_line(on_line), m_limit(limit), m_drop(drop) {}

    // Take data; return false when it passes the limit and is not to be dropped.
    bool feed(const char* data, size_t size) {
        std::string& buffer = m_on_line ? m_partial : m_keep;
        if (buffer.size() + size > m_limit) {
            if (!m_drop) {
                return false;
            }
            size_t room = m_limit - std::min(m_limit, buffer.size());
            m_dropped += size - room;
            size = room;
        }
        buffer.append(data, size);
        if (m_on_line) {
            size_t start = 0;
            for (size_t nl; (nl = m_partial.find('\n', start)) != std::string::npos;
                 start = nl + 1) {
                m_on_line(m_partial.substr(start, nl - start));
            }
            m_partial.erase(0, start);
        }
        return true;
    }

    void finish() {
        if (m_on_line && !m_partial.empty()) {
            m_on_line(m_partial);
            m_partial.clear();
        }
    }

    size_t dropped() const { return m_dropped; }

  private:
    std::string& m_keep;
    const LineCallback& m_on_line;
    size_t m_limit;
    bool m_drop;
    std::string m_partial;
    size_t m_dropped = 0;
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

// How long a child's leftovers may hold its output open once it has ended.
constexpr auto k_drain = std::chrono::milliseconds(1000);
// How often the loop looks at the clock, the cancel flag and whether the child ended.
constexpr int k_check_ms = 100;

// One child run to its end: its stdin fed, both streams read, every limit of RunOptions kept.
class ChildRun {
  public:
    ChildRun(const RunOptions& options, Process& proc, RunResult& result,
             const LineCallback& on_out, const LineCallback& on_err)
        : m_options(options),
          m_proc(proc),
          m_result(result),
          m_out(result.out, on_out, options.max_out, false),
          m_err(result.err, on_err, options.max_err, true),
          m_out_fd(proc.stdout_fd()),
          m_err_fd(proc.stderr_fd()) {
        if (options.timeout) {
            m_deadline = Clock::now() + *options.timeout;
        }
    }

    void loop() {
        while (!must_stop()) {
            std::vector<pollfd> fds;
            for (int fd : {m_out_fd, m_err_fd}) {
                if (fd >= 0) {
                    fds.push_back({fd, POLLIN, 0});
                }
            }
            if (m_proc.stdin_fd() >= 0) {
                fds.push_back({m_proc.stdin_fd(), POLLOUT, 0});
            }
            if (::poll(fds.data(), fds.size(), poll_timeout_ms()) < 0) {
                continue;  // EINTR
            }
            for (const auto& p : fds) {
                if (p.revents != 0 && !pump(p.fd)) {
                    stop_group();
                    m_result.out_overflow = true;
                    return;
                }
            }
        }
    }

    void finish() {
        m_proc.close_stdin();
        m_out.finish();
        m_err.finish();
        m_result.err_dropped = m_err.dropped();
    }

  private:
    int poll_timeout_ms() const {
        if (!m_deadline) {
            return k_check_ms;
        }
        auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(*m_deadline - Clock::now());
        return static_cast<int>(std::clamp<long long>(left.count(), 0, k_check_ms));
    }

    // Return whether to stop: the child ended and its output is closed; or cancelled, past the
    // deadline, or what the ended child left behind still holds its output after k_drain
    // (the whole group killed then).
    bool must_stop() {
        if (!m_ended && m_proc.try_wait()) {
            m_ended = Clock::now();
        }
        if (m_ended && m_out_fd < 0 && m_err_fd < 0) {
            return true;
        }
        if (m_options.cancelled && m_options.cancelled()) {
            m_result.cancelled = true;
            if (interrupted_in_grace()) {
                return false;
            }
        } else if (m_deadline && Clock::now() >= *m_deadline) {
            m_result.timed_out = true;
        } else if (!m_ended || Clock::now() < *m_ended + k_drain) {
            return false;
        }
        stop_group();
        return true;
    }

    // On cancel with a grace period: SIGINT the group once, and return true while the grace
    // lasts and the child has not ended.
    bool interrupted_in_grace() {
        if (m_options.cancel_grace.count() <= 0 || m_ended) {
            return false;
        }
        if (!m_interrupted) {
            m_interrupted = Clock::now() + m_options.cancel_grace;
            m_proc.signal(SIGINT);
            m_proc.signal_group(SIGINT);
        }
        return Clock::now() < *m_interrupted;
    }

    void stop_group() {
        m_proc.signal(SIGKILL);
        m_proc.signal_group(SIGKILL);
    }

    // Move data for one ready descriptor; return false when stdout passed its limit.
    bool pump(int fd) {
        if (fd == m_proc.stdin_fd()) {
            feed_stdin(fd);
            return true;
        }
        char buffer[65536];
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            return true;
        }
        if (n <= 0) {
            (fd == m_out_fd ? m_out_fd : m_err_fd) = -1;
            return true;
        }
        return (fd == m_out_fd ? m_out : m_err).feed(buffer, static_cast<size_t>(n));
    }

    void feed_stdin(int fd) {
        const std::string& input = m_options.input;
        ssize_t n = write_no_sigpipe(fd, input.data() + m_written, input.size() - m_written);
        if (n > 0) {
            m_written += static_cast<size_t>(n);
        }
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || m_written == input.size()) {
            m_proc.close_stdin();  // done, or the child stopped reading: not our error
        }
    }

    const RunOptions& m_options;
    Process& m_proc;
    RunResult& m_result;
    StreamSink m_out;
    StreamSink m_err;
    int m_out_fd;
    int m_err_fd;
    std::optional<Clock::time_point> m_deadline;
    std::optional<Clock::time_point> m_ended;
    std::optional<Clock::time_point> m_interrupted;  // SIGINT sent on cancel; killed after this
    size_t m_written = 0;
};

}  // namespace

Result<RunResult> run_streaming(const RunOptions& options, const LineCallback& on_out,
                                const LineCallback& on_err) {
    SpawnOptions spawn;
    spawn.argv = options.argv;
    spawn.env = options.env;
    spawn.cwd = options.cwd;
    spawn.stdin_from = options.input.empty() ? Redirect::null() : Redirect::pipe();
    spawn.own_group = true;
    auto started = Process::spawn(spawn);
    if (!started) {
        return error(started.error());
    }
    Process proc = std::move(started.value());
    RunResult result;
    ChildRun child(options, proc, result, on_out, on_err);
    child.loop();
    child.finish();
    auto status = proc.wait();
    if (!status) {
        return error(status.error());
    }
    result.status = *status;
    return result;
}

Result<RunResult> run(const RunOptions& options) {
    return run_streaming(options, LineCallback{}, LineCallback{});
}

}  // namespace kftrain::util
