#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "trainer/mlflow/rest.h"

namespace kftrain::trainer::mlflow {

// Hold what the trainer asked to record, in arrival order: params, metrics and/or a status.
struct TrackEvents {
    std::map<std::string, std::string> params;
    std::vector<MetricPoint> metrics;
    // RUNNING, FINISHED, FAILED or KILLED; empty when no status was set.
    std::string status;
    int64_t status_time_ms = 0;

    bool empty() const { return params.empty() && metrics.empty() && status.empty(); }
};

// Buffer tracking events between the training thread and the sender, bounded in metric
// values: when full, new metric values are dropped and counted, never waited for.
class TrackQueue {
  public:
    explicit TrackQueue(std::size_t max_metrics) : m_max_metrics(max_metrics) {}

    // Add params (merged with pending ones); never blocks.
    void push_params(const std::map<std::string, std::string>& params);
    // Add metric values, or drop them when the queue is full; never blocks.
    void push_metrics(const std::vector<MetricPoint>& metrics);
    // Record the final status; never blocks.
    void push_status(const std::string& status, int64_t time_ms);
    // Wait until something is pending, the queue is closed or the deadline passes; take it all.
    TrackEvents take(std::chrono::steady_clock::time_point deadline);
    // Stop accepting events and wake the taker.
    void close();
    // Tell whether close() was called.
    bool closed() const;
    // Forget pending events (used when tracking is switched off).
    void clear();
    // Return how many metric values were dropped because the queue was full.
    int64_t dropped() const;

  private:
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::size_t m_max_metrics;
    TrackEvents m_pending;
    int64_t m_dropped = 0;
    bool m_closed = false;
};

}  // namespace kftrain::trainer::mlflow
