#pragma once

// A real HTTP/1.1 server on 127.0.0.1, plain or over TLS, for the trainer's HTTP clients:
// it records every request, answers through a route the test gives, and misbehaves on
// command (refuses connections, answers 500 or 401, or answers slowly).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace trainer_test {

// Hold one request as the server received it.
struct RecordedRequest {
    std::string method;
    std::string path;
    std::string query;
    std::string authorization;
    std::string content_type;
    std::string raw_body;
    long status = 0;
};

// Say how the server misbehaves.
enum class FailMode { none, refuse, error_500, slow, unauthorized };

// Hold one answer: a status (0 hangs up without answering) and a JSON body.
struct HttpAnswer {
    long status = 200;
    nlohmann::json body = nlohmann::json::object();
};

// Name the PEM files a TLS server presents: its certificate (chain) and its private key.
struct TlsIdentity {
    std::string cert_file;
    std::string key_file;
};

// Serve HTTP/1.1 (HTTPS with a TLS identity) on a free loopback port from a background thread.
class HttpTestServer {
  public:
    // Answer a request that passed the failure modes and the authorization check; it is
    // called under the server's lock, one request at a time.
    using Route = std::function<HttpAnswer(const RecordedRequest&)>;
    // Make the body of an error answer the server injects (500, 401) in the API's own shape.
    using ErrorBody = std::function<nlohmann::json(long status, const std::string& message)>;

    HttpTestServer(Route route, ErrorBody error_body, std::optional<TlsIdentity> tls = {});
    ~HttpTestServer();
    HttpTestServer(const HttpTestServer&) = delete;
    HttpTestServer& operator=(const HttpTestServer&) = delete;

    // Return the base URL, e.g. https://127.0.0.1:40123.
    std::string base_url() const;
    // Misbehave as mode for the next count requests (count < 0: until told otherwise);
    // refuse closes the listening socket until the mode is set back to none.
    void fail(FailMode mode, int count = -1);
    // Set how long a slow answer waits before being sent (the server's end cuts it short).
    void set_slow_delay(std::chrono::milliseconds delay);
    // Demand this Authorization header value; others get 401 (empty: accept anything).
    void require_authorization(const std::string& value);
    // Return copies of the requests answered so far.
    std::vector<RecordedRequest> requests() const;
    // Count the requests answered for path.
    int count_path(const std::string& path) const;
    // Count the connections whose TLS handshake failed (a client refusing the certificate).
    int failed_handshakes() const { return m_failed_handshakes; }
    // Count the requests received, answered or not yet (a slow answer is still pending).
    int received() const { return m_received; }

  private:
    struct Tls;

    void serve();
    bool open_listener();
    void reserve_port();
    void set_mode(FailMode mode, int count);
    void handle_connection(int fd);
    HttpAnswer answer(RecordedRequest& request);

    Route m_route;
    ErrorBody m_error_body;
    std::unique_ptr<Tls> m_tls;
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_listening{true};
    std::atomic<int> m_failed_handshakes{0};
    std::atomic<int> m_received{0};
    int m_listen_fd = -1;
    int m_reserve_fd = -1;
    int m_port = 0;
    FailMode m_mode = FailMode::none;
    int m_fail_count = -1;
    std::chrono::milliseconds m_slow_delay{2000};
    std::string m_required_auth;
    std::vector<RecordedRequest> m_requests;
    std::thread m_thread;
    std::vector<std::thread> m_workers;  // touched by the accept thread only
};

// Poll pred every few milliseconds until it holds or timeout passes; return its last value.
template <typename Pred>
bool poll_until(Pred pred, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!pred()) {
        if (std::chrono::steady_clock::now() >= deadline) {
            return pred();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

}  // namespace trainer_test
