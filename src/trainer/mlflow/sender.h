#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "trainer/mlflow/call.h"
#include "trainer/mlflow/config.h"
#include "trainer/mlflow/http.h"
#include "trainer/mlflow/options.h"
#include "trainer/mlflow/queue.h"

namespace kftrain::trainer::mlflow {

// Hold what the trainer tells the logger about the run.
struct MlflowRunContext {
    int world_size = 1;
    // Where the run id is kept for a restarted rank 0 (no resume when empty).
    std::string checkpoint_dir;
    // Print one warning line (already free of credentials).
    std::function<void(const std::string&)> warn;
};

// Talk to the tracking server for one run: experiment, run, batches, status. Runs on the
// logger's sender thread; after a failure it stays off.
class MlflowSender {
  public:
    using Wait = std::function<bool(std::chrono::milliseconds)>;

    // start_time_ms becomes the run's start time when the run is created.
    MlflowSender(const MlflowConfig& config, const MlflowRunContext& context,
                 const MlflowOptions& options, const std::atomic<bool>* abort, Wait wait,
                 int64_t start_time_ms);

    // Send events, creating or resuming the run first; return false once tracking is off.
    bool send(const TrackEvents& events);
    // Return the run id ("" before the run exists).
    const std::string& run_id() const { return m_run_id; }
    // Tell whether an earlier run id was taken from the checkpoint directory.
    bool resumed() const { return m_resumed; }
    // Return how many HTTP requests and retries were made.
    const CallCounts& counts() const { return m_counts; }
    // Return how many metric values the server accepted.
    int64_t metrics_sent() const { return m_metrics_sent; }
    // Return how many warnings were printed.
    int warnings() const { return m_warnings; }

  private:
    CallResult post(const std::string& endpoint, const nlohmann::json& body);
    CallResult get(const std::string& endpoint, const std::string& query);
    bool start_run();
    bool resume_run(const std::string& run_id, bool& resumed);
    std::optional<std::string> experiment_id();
    std::optional<std::string> create_experiment();
    std::map<std::string, std::string> run_tags() const;
    bool send_params(const std::map<std::string, std::string>& params);
    bool send_metrics(const std::vector<MetricPoint>& metrics);
    bool fail(const CallResult& result, const std::string& what);
    void warn(const std::string& message);

    const MlflowConfig& m_config;
    const MlflowRunContext& m_context;
    const MlflowOptions& m_options;
    MlflowHttp m_http;
    Wait m_wait;
    int64_t m_start_time_ms;
    CallCounts m_counts;
    std::string m_run_id;
    bool m_resumed = false;
    bool m_off = false;
    int64_t m_metrics_sent = 0;
    int m_warnings = 0;
};

// Return the current time in milliseconds since the Unix epoch, as MLflow stores times.
int64_t unix_time_ms();

}  // namespace kftrain::trainer::mlflow
