#include "trainer/metrics/server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "trainer/metrics/exposition.h"
#include "util/signals/signal_free_thread.h"

namespace kftrain::trainer::metrics {
namespace {

// Prometheus' default scrape timeout is 10 s and it sends its request at once: a client gets
// 2 s to send its request, then 5 for the answer to go, then 1 to close after reading it.
constexpr auto k_request_deadline = std::chrono::seconds(2);
constexpr auto k_answer_deadline = std::chrono::seconds(5);
constexpr auto k_drain_deadline = std::chrono::seconds(1);
constexpr int k_poll_ms = 200;  // how soon a stop is seen
constexpr std::size_t k_max_head = 8 * 1024;
// Connections served at once; when all are taken, the oldest still silent one is closed to
// make room for a new one.
constexpr std::size_t k_max_connections = 16;

// Return whether a request head has come whole: up to its blank line.
bool head_complete(const std::string& head) {
    return head.find("\r\n\r\n") != std::string::npos || head.find("\n\n") != std::string::npos;
}

// Listen on port: IPv6 with IPv4 mapped in, or IPv4 alone where the host has no IPv6.
util::Result<std::pair<util::UniqueFd, int>> listen_any(int port) {
    for (const int family : {AF_INET6, AF_INET}) {
        util::UniqueFd fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
        if (!fd) {
            if (family == AF_INET6) {
                continue;
            }
            return util::error(fmt::format("--metrics-port {}: {}", port, std::strerror(errno)));
        }
        const int on = 1;
        const int off = 0;
        ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        sockaddr_storage storage{};
        socklen_t len = 0;
        if (family == AF_INET6) {
            ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
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
        if (::bind(fd.get(), addr, len) != 0 || ::listen(fd.get(), 64) != 0 ||
            ::getsockname(fd.get(), addr, &len) != 0) {
            const int err = errno;
            if (family == AF_INET6 && err == EAFNOSUPPORT) {
                continue;
            }
            return util::error(
                fmt::format("--metrics-port {}: cannot listen: {}", port, std::strerror(err)));
        }
        const int bound = family == AF_INET6
                              ? ntohs(reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port)
                              : ntohs(reinterpret_cast<sockaddr_in*>(&storage)->sin_port);
        return std::pair<util::UniqueFd, int>{std::move(fd), bound};
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
    // The absolute form a proxy gets, "http://host:port/metrics", names the same path.
    for (const char* scheme : {"http://", "https://"}) {
        if (target.rfind(scheme, 0) == 0) {
            const auto slash = target.find('/', std::strlen(scheme));
            target = slash == std::string::npos ? "/" : target.substr(slash);
        }
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
    if (port < 0 || port > 65535) {
        return util::error(fmt::format("--metrics-port {}: not a TCP port (0 to 65535)", port));
    }
    auto listener = listen_any(port);
    if (!listener) {
        return util::error(listener.error());
    }
    return std::unique_ptr<MetricsServer>(
        new MetricsServer(std::move(listener->first), listener->second, std::move(body)));
}

MetricsServer::MetricsServer(util::UniqueFd listen_fd, int port, Body body)
    : m_listen_fd(std::move(listen_fd)), m_port(port), m_body(std::move(body)) {
    m_thread = util::signal_free_thread([this] { serve(); });
}

MetricsServer::~MetricsServer() {
    m_stop = true;
    if (m_thread.joinable()) {
        m_thread.join();
    }
}

void MetricsServer::serve() {
    std::vector<Connection> open;
    std::vector<pollfd> polled;
    auto accept_after = Clock::now();  // accepting pauses after a failure (out of descriptors)
    while (!m_stop) {
        polled.clear();
        for (const auto& c : open) {
            const bool reads = c.phase != Connection::Phase::writing;
            polled.push_back({c.fd.get(), static_cast<short>(reads ? POLLIN : POLLOUT), 0});
        }
        // The listener is polled only when a client can be taken: a free slot, or one still
        // silent to close for it. Else a waiting client would wake poll at once, again and
        // again (a spin), while it waits in the listen queue for a slot.
        const bool accepting = Clock::now() >= accept_after && has_room(open);
        polled.push_back({accepting ? m_listen_fd.get() : -1, POLLIN, 0});
        if (::poll(polled.data(), polled.size(), k_poll_ms) < 0 && errno != EINTR) {
            return;
        }
        const auto now = Clock::now();
        for (std::size_t i = 0; i < open.size(); ++i) {
            if (polled[i].revents != 0 && !step(open[i], now)) {
                open[i].deadline = now;  // done or gone: closed below
            }
        }
        if (accepting && (polled.back().revents & POLLIN) != 0 && !accept_one(open, now)) {
            accept_after = now + std::chrono::milliseconds(k_poll_ms);
        }
        for (auto it = open.begin(); it != open.end();) {
            if (it->deadline > now) {
                ++it;
                continue;
            }
            it = open.erase(it);  // closes it
        }
    }
}

bool MetricsServer::has_room(const std::vector<Connection>& open) {
    return open.size() < k_max_connections ||
           std::any_of(open.begin(), open.end(),
                       [](const Connection& c) { return c.phase == Connection::Phase::reading; });
}

bool MetricsServer::accept_one(std::vector<Connection>& open, Clock::time_point now) {
    if (open.size() >= k_max_connections) {
        // Full: the oldest client still to send its request makes room, so that clients that
        // connect and say nothing cannot keep a scraper out (one that is sending an answer
        // keeps its place).
        auto oldest = open.end();
        for (auto it = open.begin(); it != open.end(); ++it) {
            if (it->phase == Connection::Phase::reading &&
                (oldest == open.end() || it->accepted < oldest->accepted)) {
                oldest = it;
            }
        }
        open.erase(oldest);  // closes it (has_room says there is one)
    }
    util::UniqueFd fd(::accept4(m_listen_fd.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!fd) {
        return errno == EAGAIN || errno == EINTR || errno == ECONNABORTED;
    }
    Connection c;
    c.fd = std::move(fd);
    c.accepted = now;
    c.deadline = now + k_request_deadline;
    open.push_back(std::move(c));
    return true;
}

bool MetricsServer::step(Connection& c, Clock::time_point now) {
    char chunk[2048];
    if (c.phase != Connection::Phase::writing) {
        const ssize_t n = ::recv(c.fd.get(), chunk, sizeof chunk, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            return true;
        }
        if (n <= 0) {
            return false;  // the client went away, or read the whole answer and closed
        }
        if (c.phase == Connection::Phase::draining) {
            return true;  // what follows the request is read and dropped until the client closes
        }
        c.in.append(chunk, static_cast<std::size_t>(n));
        if (c.in.size() > k_max_head) {
            return false;  // no scraper sends a head this long
        }
        if (!head_complete(c.in)) {
            return true;
        }
        c.out = format_response(respond(c.in));
        c.phase = Connection::Phase::writing;
        c.deadline = now + k_answer_deadline;
    }
    const ssize_t n =
        ::send(c.fd.get(), c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        return true;
    }
    if (n <= 0) {
        return false;  // the client went away
    }
    c.sent += static_cast<std::size_t>(n);
    if (c.sent < c.out.size()) {
        return true;
    }
    // Answered: end the stream, and read what the client still sends (a body, a pipelined
    // request) until it closes, so that closing never resets the connection under an answer
    // it has yet to read.
    ::shutdown(c.fd.get(), SHUT_WR);
    c.phase = Connection::Phase::draining;
    c.deadline = std::min(c.deadline, now + k_drain_deadline);
    return true;
}

Response MetricsServer::respond(const std::string& head) const {
    Request request;
    if (parse_request_head(head, request)) {
        return answer(request, m_body);
    }
    Response response;
    response.status = 400;
    response.reason = "Bad Request";
    response.body = "not an HTTP request\n";
    return response;
}

}  // namespace kftrain::trainer::metrics
