#include "trainer/comm/store_port.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>

using namespace kftrain::trainer::comm;
using Clock = std::chrono::steady_clock;

namespace {

// A TCP socket on 127.0.0.1 with a free port the kernel picked; listening or only bound.
struct LoopbackSocket {
    int fd = -1;
    int port = 0;

    explicit LoopbackSocket(bool listening) {
        fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
        socklen_t size = sizeof(addr);
        REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size) == 0);
        port = ntohs(addr.sin_port);
        if (listening) {
            REQUIRE(::listen(fd, 4) == 0);
        }
    }
    ~LoopbackSocket() { ::close(fd); }
};

}  // namespace

TEST_CASE("rank 0 learns that its store port is taken, and that a free one is free",
          "[trainer][comm]") {
    LoopbackSocket held(true);
    CHECK(listen_error(held.port) ==
          "Address already in use; another process on this host holds it");
    const int port = held.port;
    ::close(held.fd);
    held.fd = ::socket(AF_INET, SOCK_STREAM, 0);  // closed once, by the destructor
    CHECK(listen_error(port) == "");
}

TEST_CASE("a rank finds rank 0's store as soon as it listens", "[trainer][comm]") {
    LoopbackSocket store(true);
    CHECK(wait_until_listening("127.0.0.1", store.port, Clock::now() + std::chrono::seconds(10)));
    CHECK(wait_until_listening("localhost", store.port, Clock::now() + std::chrono::seconds(10)));
}

TEST_CASE("waiting for a store that never listens ends at the deadline", "[trainer][comm]") {
    LoopbackSocket bound(false);  // holds the port, refuses connections
    const auto deadline = Clock::now() + std::chrono::milliseconds(200);
    CHECK_FALSE(wait_until_listening("127.0.0.1", bound.port, deadline));
    CHECK(Clock::now() >= deadline);
    CHECK_FALSE(wait_until_listening("no-such-host.invalid", bound.port,
                                     Clock::now() + std::chrono::milliseconds(100)));
}
