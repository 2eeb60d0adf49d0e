#include "trainer/metrics/server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "trainer/metrics/exposition.h"
#include "util/signal_free_thread.h"

namespace kftrain::trainer::metrics {
namespace {

using Clock = std::chrono::steady_clock;

// Prometheus' default scrape timeout is 10 s: a connection gets 5 for its request and answer.
constexpr auto k_io_deadline = std::chrono::seconds(5);
constexpr int k_poll_ms = 200;  // how soon a stop is seen
constexpr std::size_t k_max_head = 8 * 1024;
// Connections served at once; more wait in the listen queue. A client that holds one open
// without sending costs one slot for k_io_deadline, never the others' answers.
constexpr std::size_t k_max_connections = 16;

// Return whether a request head has come whole: up to its blank line.
bool head_complete(const std::string& head) {
    return head.find("\r\n\r\n") != std::string::npos || head.find("\n\n") != std::string::npos;
}

// Listen on port: IPv6 with IPv4 mapped in, or IPv4 alone where the host has no IPv6.
util::Result<std::pair<int, int>> listen_any(int port) {
    for (const int family : {AF_INET6, AF_INET}) {
        const int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) {
            if (family == AF_INET6) {
                continue;
            }
            return util::error(fmt::format("--metrics-port {}: {}", port, std::strerror(errno)));
        }
        const int on = 1;
        const int off = 0;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        sockaddr_storage storage{};
        socklen_t len = 0;
        if (family == AF_INET6) {
            ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
            auto* a = reinterpret_cast<sockaddr_in6*>(&storage);
            a->sin6_family = AF_INET6;
            a->sin6_addr = in6addr_any;
            a->sin6_port = htons(static_cast<uint16_t>(port));
            len = sizeof *a;
        } else {
            auto* a = reinterpret_cast<sockaddr_in*>(&storage);
            a->sin_family = AF_INET;
            a->sin_addr.s_addr = htonl(INADDR_ANY);
            a->sin_port = htons(static_cast<uint16_t>(port));
            len = sizeof *a;
        }
        auto* addr = reinterpret_cast<sockaddr*>(&storage);
        if (::bind(fd, addr, len) != 0 || ::listen(fd, 64) != 0 ||
            ::getsockname(fd, addr, &len) != 0) {
            const int err = errno;
            ::close(fd);
            if (family == AF_INET6 && err == EAFNOSUPPORT) {
                continue;
            }
            return util::error(
                fmt::format("--metrics-port {}: cannot listen: {}", port, std::strerror(err)));
        }
        const int bound = family == AF_INET6
                              ? ntohs(reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port)
                              : ntohs(reinterpret_cast<sockaddr_in*>(&storage)->sin_port);
        return std::pair<int, int>{fd, bound};
    }
    return util::error(fmt::format("--metrics-port {}: no IPv4 or IPv6 socket", port));
}

}  // namespace

bool parse_request_head(const std::string& head, Request& out) {
    const auto line_end = head.find_first_of("\r\n");
    const std::string line = head.substr(0, line_end);
    const auto first = line.find(' ');
    const auto second = first == std::string::npos ? first : line.find(' ', first + 1);
    if (first == std::string::npos || second == std::string::npos || first == 0 ||
        line.compare(second + 1, 5, "HTTP/") != 0) {
        return false;
    }
    out.method = line.substr(0, first);
    std::string target = line.substr(first + 1, second - first - 1);
    if (target.empty()) {
        return false;
    }
    out.path = target.substr(0, target.find_first_of("?#"));
    return true;
}

Response answer(const Request& request, const std::function<std::string()>& body) {
    Response response;
    if (request.method != "GET" && request.method != "HEAD") {
        response.status = 405;
        response.reason = "Method Not Allowed";
        response.headers = "Allow: GET, HEAD\r\n";
        response.body = "only GET and HEAD are served\n";
        return response;
    }
    response.head_only = request.method == "HEAD";
    if (request.path != "/metrics") {
        response.status = 404;
        response.reason = "Not Found";
        response.body = "kftrain-trainer serves its metrics at /metrics\n";
        return response;
    }
    response.content_type = k_content_type;
    response.body = body();
    return response;
}

std::string format_response(const Response& r) {
    std::string bytes = fmt::format(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}Connection: close\r\n\r\n",
        r.status, r.reason, r.content_type, r.body.size(), r.headers);
    if (!r.head_only) {
        bytes += r.body;
    }
    return bytes;
}

util::Result<std::unique_ptr<MetricsServer>> MetricsServer::start(int port, Body body) {
    auto listener = listen_any(port);
    if (!listener) {
        return util::error(listener.error());
    }
    return std::unique_ptr<MetricsServer>(
        new MetricsServer(listener->first, listener->second, std::move(body)));
}

MetricsServer::MetricsServer(int fd, int port, Body body)
    : m_listen_fd(fd), m_port(port), m_body(std::move(body)) {
    m_thread = util::signal_free_thread([this] { serve(); });
}

MetricsServer::~MetricsServer() {
    m_stop = true;
    if (m_thread.joinable()) {
        m_thread.join();
    }
    ::close(m_listen_fd);
}

void MetricsServer::serve() {
    std::vector<Connection> open;
    std::vector<pollfd> polled;
    while (!m_stop) {
        polled.clear();
        for (const auto& c : open) {
            polled.push_back({c.fd, static_cast<short>(c.out.empty() ? POLLIN : POLLOUT), 0});
        }
        const bool room = open.size() < k_max_connections;
        polled.push_back({room ? m_listen_fd : -1, POLLIN, 0});
        if (::poll(polled.data(), polled.size(), k_poll_ms) < 0 && errno != EINTR) {
            return;
        }
        const auto now = Clock::now();
        for (std::size_t i = 0; i < open.size(); ++i) {
            if (polled[i].revents != 0 && !step(open[i])) {
                open[i].deadline = now;  // done or gone: closed below
            }
        }
        for (auto it = open.begin(); it != open.end();) {
            if (it->deadline > now) {
                ++it;
                continue;
            }
            ::close(it->fd);
            it = open.erase(it);
        }
        if (room && (polled.back().revents & POLLIN) != 0) {
            const int fd = ::accept4(m_listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd >= 0) {
                open.push_back({fd, now + k_io_deadline, {}, {}, 0});
            }
        }
    }
    for (const auto& c : open) {
        ::close(c.fd);
    }
}

bool MetricsServer::step(Connection& c) {
    if (c.out.empty()) {
        char chunk[2048];
        const ssize_t n = ::recv(c.fd, chunk, sizeof chunk, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            return true;
        }
        if (n <= 0) {
            return false;  // the client went away before its request was whole
        }
        c.in.append(chunk, static_cast<std::size_t>(n));
        if (c.in.size() > k_max_head) {
            return false;  // no scraper sends a head this long
        }
        if (!head_complete(c.in)) {
            return true;
        }
        Request request;
        Response response;
        if (parse_request_head(c.in, request)) {
            response = answer(request, m_body);
        } else {
            response.status = 400;
            response.reason = "Bad Request";
            response.body = "not an HTTP request\n";
        }
        c.out = format_response(response);
    }
    const ssize_t n = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        return true;
    }
    if (n <= 0) {
        return false;  // the client went away
    }
    c.sent += static_cast<std::size_t>(n);
    return c.sent < c.out.size();
}

}  // namespace kftrain::trainer::metrics
