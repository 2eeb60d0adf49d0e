#include "trainer/comm/store_port.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>

#include "util/fd/unique_fd.h"

namespace kftrain::trainer::comm {
namespace {

using Clock = std::chrono::steady_clock;

// Pause between tries: short next to the store's own second, long next to a refusal on
// loopback.
constexpr auto k_retry = std::chrono::milliseconds(10);

// Return whether a connection to addr completes before the deadline (non-blocking connect,
// so an unreachable host cannot hold the caller past it).
bool connects(const addrinfo& addr, Clock::time_point deadline) {
    const util::UniqueFd fd(::socket(
        addr.ai_family, addr.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, addr.ai_protocol));
    if (!fd) {
        return false;
    }
    bool ok = ::connect(fd.get(), addr.ai_addr, addr.ai_addrlen) == 0;
    if (!ok && errno == EINPROGRESS) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        pollfd p{fd.get(), POLLOUT, 0};
        int error = 0;
        socklen_t size = sizeof(error);
        ok = left.count() > 0 && ::poll(&p, 1, static_cast<int>(left.count())) == 1 &&
             ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error == 0;
    }
    return ok;
}

// Return errno of binding port on the wildcard address of family (0 on success).
int bind_error(int family, int port) {
    const util::UniqueFd fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) {
        return errno;
    }
    const int on = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    int rc = 0;
    if (family == AF_INET6) {
        sockaddr_in6 addr{};
        addr.sin6_family = AF_INET6;
        addr.sin6_addr = in6addr_any;
        addr.sin6_port = htons(static_cast<uint16_t>(port));
        rc = ::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    } else {
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_ANY);
        addr.sin_port = htons(static_cast<uint16_t>(port));
        rc = ::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    }
    return rc == 0 ? 0 : errno;
}

}  // namespace

std::string listen_error(int port) {
    // The store listens on the first family that binds, IPv6 (dual stack) first.
    int error = bind_error(AF_INET6, port);
    if (error != 0 && error != EADDRINUSE && error != EACCES) {
        error = bind_error(AF_INET, port);  // no IPv6 on this host
    }
    if (error == 0) {
        return "";
    }
    std::string why = std::strerror(error);
    if (error == EADDRINUSE) {
        why += "; another process on this host holds it";
    }
    return why;
}

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
