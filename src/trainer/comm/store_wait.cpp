#include "trainer/comm/store_wait.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <thread>

namespace kftrain::trainer::comm {
namespace {

using Clock = std::chrono::steady_clock;

// Pause between tries: short next to the store's own second, long next to a refusal on
// loopback.
constexpr auto k_retry = std::chrono::milliseconds(10);

// Return whether a connection to addr completes before the deadline (non-blocking connect,
// so an unreachable host cannot hold the caller past it).
bool connects(const addrinfo& addr, Clock::time_point deadline) {
    const int fd =
        ::socket(addr.ai_family, addr.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, addr.ai_protocol);
    if (fd < 0) {
        return false;
    }
    bool ok = ::connect(fd, addr.ai_addr, addr.ai_addrlen) == 0;
    if (!ok && errno == EINPROGRESS) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        pollfd p{fd, POLLOUT, 0};
        int error = 0;
        socklen_t size = sizeof(error);
        ok = left.count() > 0 && ::poll(&p, 1, static_cast<int>(left.count())) == 1 &&
             ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error == 0;
    }
    ::close(fd);
    return ok;
}

}  // namespace

bool wait_until_listening(const std::string& host, int port, Clock::time_point deadline) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    const std::string service = std::to_string(port);
    while (Clock::now() < deadline) {
        addrinfo* found = nullptr;
        if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &found) == 0) {
            const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);
            for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
                if (connects(*a, deadline)) {
                    return true;
                }
            }
        }
        std::this_thread::sleep_for(k_retry);
    }
    return false;
}

}  // namespace kftrain::trainer::comm
