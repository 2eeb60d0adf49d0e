#pragma once

// A real HTTP/1.1 server on 127.0.0.1 speaking the part of MLflow's REST API the trainer
// uses; it checks request bodies, records everything and fails on command.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
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

// Hold one run as the server stores it.
struct FakeRun {
    std::string run_id;
    std::string experiment_id;
    std::string run_name;
    std::string status = "RUNNING";
    int64_t start_time = 0;
    int64_t end_time = 0;
    std::map<std::string, std::string> tags;
    std::map<std::string, std::string> params;
    std::vector<nlohmann::json> metrics;
    // Values of the metrics logged under key, in arrival order.
    std::vector<double> values(const std::string& key) const;
};

// Say how the server misbehaves.
enum class FailMode { none, refuse, error_500, slow, unauthorized };

// Serve MLflow's REST endpoints on a free loopback port from a background thread.
class MlflowTestServer {
  public:
    MlflowTestServer();
    ~MlflowTestServer();
    MlflowTestServer(const MlflowTestServer&) = delete;
    MlflowTestServer& operator=(const MlflowTestServer&) = delete;

    // Return the tracking URI, e.g. http://127.0.0.1:40123.
    std::string uri() const;
    // Misbehave as mode for the next count requests (count < 0: until told otherwise);
    // refuse closes the listening socket until the mode is set back to none.
    void fail(FailMode mode, int count = -1);
    // Set how long a slow answer waits before being sent.
    void set_slow_delay(std::chrono::milliseconds delay);
    // Demand this Authorization header value; others get 401 (empty: accept anything).
    void require_authorization(const std::string& value);
    // Add an experiment as if it existed before; return its id.
    std::string add_experiment(const std::string& name);
    // Return copies of what was received and stored.
    std::vector<RecordedRequest> requests() const;
    std::vector<FakeRun> runs() const;
    std::map<std::string, std::string> experiments() const;
    // Return the requests that broke the MLflow REST API reference, one line each.
    std::vector<std::string> violations() const;
    // Count the requests received for an endpoint such as "runs/log-batch".
    int count(const std::string& endpoint) const;

  private:
    struct Answer {
        long status = 200;
        nlohmann::json body = nlohmann::json::object();
    };

    void serve();
    bool open_listener();
    void reserve_port();
    void set_mode(FailMode mode, int count);
    void handle_connection(int fd);
    Answer answer(RecordedRequest& request);
    Answer route(const RecordedRequest& request, const nlohmann::json& body);
    Answer get_by_name(const RecordedRequest& request);
    Answer create_experiment(const nlohmann::json& body);
    Answer create_run(const nlohmann::json& body);
    Answer log_batch(const nlohmann::json& body, std::size_t raw_size);
    Answer update_run(const nlohmann::json& body);
    Answer get_run(const RecordedRequest& request);
    Answer invalid(const std::string& what);
    static Answer error(long status, const std::string& code, const std::string& message);

    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_listening{true};
    int m_listen_fd = -1;
    int m_reserve_fd = -1;
    int m_port = 0;
    FailMode m_mode = FailMode::none;
    int m_fail_count = -1;
    std::chrono::milliseconds m_slow_delay{2000};
    std::string m_required_auth;
    std::map<std::string, std::string> m_experiments;  // name -> id
    std::vector<FakeRun> m_runs;
    std::vector<RecordedRequest> m_requests;
    std::vector<std::string> m_violations;
    int m_next_id = 1;
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
