#pragma once

// An HTTP test server speaking the part of MLflow's REST API the trainer uses; it checks
// request bodies, records everything and fails on command.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trainer/support/http_test_server.h"

namespace trainer_test {

// The path every MLflow REST endpoint starts with.
inline constexpr const char* k_mlflow_api_prefix = "/api/2.0/mlflow/";

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

// Serve MLflow's REST endpoints on a free loopback port from a background thread.
class MlflowTestServer {
  public:
    MlflowTestServer();
    MlflowTestServer(const MlflowTestServer&) = delete;
    MlflowTestServer& operator=(const MlflowTestServer&) = delete;

    // Return the tracking URI, e.g. http://127.0.0.1:40123.
    std::string uri() const { return m_http.base_url(); }
    // Misbehave as mode for the next count requests (see HttpTestServer::fail).
    void fail(FailMode mode, int count = -1) { m_http.fail(mode, count); }
    // Set how long a slow answer waits before being sent.
    void set_slow_delay(std::chrono::milliseconds delay) { m_http.set_slow_delay(delay); }
    // Demand this Authorization header value; others get 401 (empty: accept anything).
    void require_authorization(const std::string& value) { m_http.require_authorization(value); }
    // Add an experiment as if it existed before; return its id.
    std::string add_experiment(const std::string& name);
    // Return copies of what was received and stored.
    std::vector<RecordedRequest> requests() const { return m_http.requests(); }
    std::vector<FakeRun> runs() const;
    std::map<std::string, std::string> experiments() const;
    // Return the requests that broke the MLflow REST API reference, one line each.
    std::vector<std::string> violations() const;
    // Count the requests received for an endpoint such as "runs/log-batch".
    int count(const std::string& endpoint) const;

  private:
    using Answer = HttpAnswer;

    Answer answer(const RecordedRequest& request);
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
    std::map<std::string, std::string> m_experiments;  // name -> id
    std::vector<FakeRun> m_runs;
    std::vector<std::string> m_violations;
    int m_next_id = 1;
    HttpTestServer m_http;  // last: its threads stop before the state above goes
};

}  // namespace trainer_test
