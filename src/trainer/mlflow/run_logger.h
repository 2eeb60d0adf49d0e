#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "trainer/loop/run_logger.h"
#include "trainer/mlflow/sender.h"

namespace kftrain::trainer::mlflow {

// Show what the MLflow logger did, for tests and diagnostics.
struct MlflowStats {
    int requests = 0;
    int retries = 0;
    int64_t metrics_sent = 0;
    int64_t metrics_dropped = 0;
    int warnings = 0;
    bool off = false;
    bool resumed = false;
    bool closed = false;
    // True when close() gave up on pending requests at the end of the flush budget.
    bool flush_cut_short = false;
    std::string run_id;
};

// Record a run in MLflow from a background thread: calls only queue and never block; the
// run is created at the first call; close() flushes within the flush budget.
class MlflowRunLogger : public RunLogger {
  public:
    MlflowRunLogger(MlflowConfig config, MlflowRunContext context, MlflowOptions options = {});
    ~MlflowRunLogger() override;
    MlflowRunLogger(const MlflowRunLogger&) = delete;
    MlflowRunLogger& operator=(const MlflowRunLogger&) = delete;

    // Queue the parameters.
    void log_params(const std::map<std::string, std::string>& params) override;
    // Queue metric values stamped with the current time.
    void log_metrics(const std::map<std::string, double>& metrics, int64_t step) override;
    // Queue the run's status (the end time is now).
    void set_status(RunStatus status) override;
    // Send what is pending within the flush budget, then stop the thread; safe to repeat.
    void close();
    // Return a snapshot of the bookkeeping.
    MlflowStats stats() const;

  private:
    void send_loop();
    bool wait_backoff(std::chrono::milliseconds delay);
    void publish(const MlflowSender& sender);

    MlflowConfig m_config;
    MlflowRunContext m_context;
    MlflowOptions m_options;
    int64_t m_start_time_ms;
    TrackQueue m_queue;
    std::atomic<bool> m_off{false};
    std::atomic<bool> m_abort{false};
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_done = false;
    MlflowStats m_stats;
    std::thread m_thread;
};

// Return MLflow's name of a run status (RUNNING, FINISHED, FAILED, KILLED).
const char* mlflow_status_name(RunStatus status);

}  // namespace kftrain::trainer::mlflow
