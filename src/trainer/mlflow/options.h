#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "trainer/mlflow/call.h"
#include "trainer/startup/env.h"

namespace kftrain::trainer::mlflow {

// Tune the logger: retries, timeouts, the exit flush and the queue bound.
struct MlflowOptions {
    RetryPolicy retry;
    std::chrono::milliseconds request_timeout{10000};
    std::chrono::milliseconds flush_budget{10000};
    std::size_t max_queued_metrics = 100000;
};

// Read how patient the MLflow logger is from the variables MLflow's own clients read:
// MLFLOW_HTTP_REQUEST_MAX_RETRIES (retries after the first attempt),
// MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR (seconds before the first retry, doubling) and
// MLFLOW_HTTP_REQUEST_TIMEOUT (seconds per request), plus KFTRAIN_MLFLOW_FLUSH_TIMEOUT
// (seconds the exit flush may take). A malformed value is named in one warning and its
// default kept: tracking settings never stop training.
MlflowOptions read_mlflow_options(const EnvLookup& env,
                                  const std::function<void(const std::string&)>& warn);

}  // namespace kftrain::trainer::mlflow
