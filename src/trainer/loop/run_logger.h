#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace kftrain::trainer {

// Say how a run ended, as experiment trackers record it.
enum class RunStatus { running, finished, failed, killed };

// Receive a run's parameters, metrics and status; rank 0 calls it. The seam for MLflow.
class RunLogger {
  public:
    virtual ~RunLogger() = default;
    // Record the run's hyperparameters once, at start.
    virtual void log_params(const std::map<std::string, std::string>& params) = 0;
    // Record metrics (loss, accuracy, samples_per_sec, lr, ...) at a global step.
    virtual void log_metrics(const std::map<std::string, double>& metrics, int64_t step) = 0;
    // Record how the run ended.
    virtual void set_status(RunStatus status) = 0;
};

// Ignore everything: used when no tracker is configured.
class NullRunLogger : public RunLogger {
  public:
    void log_params(const std::map<std::string, std::string>&) override {}
    void log_metrics(const std::map<std::string, double>&, int64_t) override {}
    void set_status(RunStatus) override {}
};

}  // namespace kftrain::trainer
