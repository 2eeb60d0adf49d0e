#include "util/process_info.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "util/fd/unique_fd.h"
#include "util/proc_stat.h"
#include "util/time_text.h"

namespace kftrain::util {

std::optional<unsigned long long> process_start_ticks(long long pid) {
    if (pid <= 0) {
        return std::nullopt;
    }
    const auto stat = util::read_proc_stat(std::to_string(pid));
    if (!stat || stat->state == 'Z' || stat->state == 'X') {
        return std::nullopt;
    }
    return stat->start_ticks;
}

bool process_alive(long long pid, unsigned long long ticks) {
    if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM)) {
        return false;
    }
    auto started = process_start_ticks(pid);
    return started && (ticks == 0 || *started == ticks);
}

namespace {

// Bind a TCP socket to port (0: one the kernel picks) on 127.0.0.1 and return the port bound,
// closing the socket; an error when it is taken.
util::Result<int> try_port(int port) {
    const UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) {
        return util::error(fmt::format("cannot open a socket: {}", std::strerror(errno)));
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    socklen_t len = sizeof(addr);
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        return util::error(fmt::format("cannot find a free port: {}", std::strerror(errno)));
    }
    return static_cast<int>(ntohs(addr.sin_port));
}

}  // namespace

util::Result<int> free_port() {
    return try_port(0);
}

util::Result<int> free_ports(int count) {
    constexpr int k_tries = 50;
    util::Result<int> first = util::error("cannot find free ports");
    for (int attempt = 0; attempt < k_tries; ++attempt) {
        first = free_port();
        if (!first) {
            return first;
        }
        bool free = *first + count - 1 <= 65535;
        for (int i = 1; free && i < count; ++i) {
            free = try_port(*first + i).ok();
        }
        if (free) {
            return first;
        }
    }
    return util::error(fmt::format("cannot find {} free ports in a row", count));
}

std::string self_executable() {
    std::error_code ec;
    auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : path.string();
}

std::string now_timestamp() {
    return util::format_timestamp(std::time(nullptr));
}

long long now_nanoseconds() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace kftrain::util
