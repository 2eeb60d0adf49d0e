#pragma once

// The trainer's /metrics endpoint: plain HTTP/1.1 on every interface of one port, served from
// a thread of its own that reads the metrics when a scrape comes. Up to 16 clients are served
// at once from one poll loop; each gets 2 seconds to send its request and 5 to take the answer,
// and when every slot is taken the oldest client still silent makes room. One that stalls,
// floods or goes away costs the server that connection only, and the step loop nothing.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "util/fd/unique_fd.h"
#include "util/result.h"

namespace kftrain::trainer::metrics {

// What an HTTP request asks for, as far as the server reads it.
struct Request {
    std::string method;
    std::string path;  // without the query
};

// An answer: status code, reason, extra header lines and body.
struct Response {
    int status = 200;
    std::string reason = "OK";
    std::string content_type = "text/plain; charset=utf-8";
    std::string headers;  // "Name: value\r\n" lines
    std::string body;
    bool head_only = false;
};

// Parse an HTTP request head (up to its blank line); false when it is not one.
bool parse_request_head(const std::string& head, Request& out);

// Answer a request: GET or HEAD /metrics with body(), 404 for other paths, 405 for other
// methods.
Response answer(const Request& request, const std::function<std::string()>& body);

// Format a response as bytes on the wire, with Content-Length and Connection: close.
std::string format_response(const Response& response);

class MetricsServer {
  public:
    using Body = std::function<std::string()>;
    // Listen on port on every interface (IPv6 and IPv4 where the host has both); port 0 lets
    // the kernel pick one. Errors name the port and the reason.
    static util::Result<std::unique_ptr<MetricsServer>> start(int port, Body body);
    ~MetricsServer();
    MetricsServer(const MetricsServer&) = delete;
    MetricsServer& operator=(const MetricsServer&) = delete;

    int port() const { return m_port; }

  private:
    using Clock = std::chrono::steady_clock;
    // One client: its request as read so far, then its answer as sent so far, then what it
    // still sends read and dropped until it closes.
    struct Connection {
        enum class Phase { reading, writing, draining };
        util::UniqueFd fd;
        Phase phase = Phase::reading;
        Clock::time_point accepted;
        Clock::time_point deadline;  // closed then, whatever its phase
        std::string in;
        std::string out;
        std::size_t sent = 0;
    };

    MetricsServer(util::UniqueFd listen_fd, int port, Body body);
    // Serve every connection from one poll loop until the server is stopped.
    void serve();
    // Whether a client can be taken: a slot is free, or one holds a client still silent.
    static bool has_room(const std::vector<Connection>& open);
    // Accept one waiting client, closing the oldest silent one when every slot is taken
    // (has_room first);
    // false when accepting failed for want of resources (out of descriptors).
    bool accept_one(std::vector<Connection>& open, Clock::time_point now);
    // Read or write what the connection is ready for; false once it is done with or gone.
    bool step(Connection& c, Clock::time_point now);
    // Return the answer to a request head.
    Response respond(const std::string& head) const;

    util::UniqueFd m_listen_fd;
    int m_port;
    Body m_body;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

}  // namespace kftrain::trainer::metrics
