#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "trainer/mlflow/http.h"
#include "trainer/mlflow/rest.h"

namespace kftrain::trainer::mlflow {

// Say how often and how patiently a request is retried.
struct RetryPolicy {
    int max_attempts = 5;
    std::chrono::milliseconds first_delay{500};
    std::chrono::milliseconds max_delay{8000};
};

// Return the wait before attempt number attempt+1 (attempt counts from 1): doubling, capped.
std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int attempt);

// Return the wait before retrying an answer: the backoff, or the server's Retry-After when
// longer, never more than the policy's max_delay.
std::chrono::milliseconds retry_delay(const RetryPolicy& policy, int attempt,
                                      const HttpResponse& response);

// Tell whether an answer is worth retrying: no answer, 429 or 5xx.
bool is_retryable(const HttpResponse& response);

// Hold the end of one call after its retries.
struct CallResult {
    enum class Kind { ok, unreachable, rejected, aborted };
    Kind kind = Kind::ok;
    HttpResponse last;
    int attempts = 0;

    bool ok() const { return kind == Kind::ok; }
    // Return MLflow's error of a rejected call.
    MlflowError error() const { return parse_mlflow_error(last.body); }
};

// Count the requests a caller made, for the logger's bookkeeping.
struct CallCounts {
    int requests = 0;
    int retries = 0;
};

// Run one request with retries and backoff; wait(d) sleeps d and returns false when aborted.
CallResult call_with_retry(const std::function<HttpResponse()>& request, const RetryPolicy& policy,
                           const std::function<bool(std::chrono::milliseconds)>& wait,
                           CallCounts& counts);

// Describe why a failed call failed, in one line (no credentials: callers redact).
std::string describe_failure(const CallResult& result);

}  // namespace kftrain::trainer::mlflow
