#include "util/bounded_read.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/fd/unique_fd.h"

namespace kftrain::util {
namespace {

using Clock = std::chrono::steady_clock;

// Wait until fd has something (data or its end) or the deadline passes.
bool wait_readable(int fd, Clock::time_point deadline) {
    while (true) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            return false;
        }
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
        if (ready > 0) {
            return true;
        }
        if (ready < 0 && errno != EINTR) {
            return true;  // let read() report it
        }
    }
}

}  // namespace

Result<std::string> read_stream(int fd, std::size_t max_bytes, std::chrono::milliseconds idle) {
    std::string text;
    char buffer[64 * 1024];
    while (text.size() <= max_bytes) {
        if (!wait_readable(fd, Clock::now() + idle)) {
            return error(
                fmt::format("nothing came for {} s{}: is anything writing to it, and does it end?",
                            std::chrono::duration_cast<std::chrono::seconds>(idle).count(),
                            text.empty() ? "" : fmt::format(" after {} bytes", text.size())));
        }
        const ssize_t got =
            ::read(fd, buffer, std::min(sizeof buffer, max_bytes + 1 - text.size()));
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        if (got < 0) {
            return error(fmt::format("cannot read: {}", std::strerror(errno)));
        }
        if (got == 0) {
            break;
        }
        text.append(buffer, static_cast<std::size_t>(got));
    }
    return text;
}

Result<std::string> read_file(const std::string& path, std::size_t max_bytes,
                              const std::string& too_large_hint) {
    // O_NONBLOCK: opening a FIFO with no writer must not block; reads poll first.
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (!fd) {
        return error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) == 0 && S_ISDIR(st.st_mode)) {
        return error(fmt::format("{}: is a directory, not a file", path));
    }
    auto text = read_stream(fd.get(), max_bytes, k_read_idle_limit);
    fd.reset();
    if (!text) {
        return error(fmt::format("{}: {}", path, text.error()));
    }
    if (text->size() > max_bytes) {
        return error(fmt::format("{}: larger than {} KiB{}", path, max_bytes / 1024,
                                 too_large_hint.empty() ? "" : "; " + too_large_hint));
    }
    return text;
}

}  // namespace kftrain::util
