#include "trainer/mlflow/call.h"

#include <fmt/format.h>

#include <algorithm>

namespace kftrain::trainer::mlflow {

std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int attempt) {
    auto delay = policy.first_delay;
    for (int i = 1; i < attempt && delay < policy.max_delay; ++i) {
        delay *= 2;
    }
    return std::min(delay, policy.max_delay);
}

std::chrono::milliseconds retry_delay(const RetryPolicy& policy, int attempt,
                                      const HttpResponse& response) {
    const std::chrono::milliseconds asked = response.retry_after;
    return std::min(std::max(backoff_delay(policy, attempt), asked), policy.max_delay);
}

bool is_retryable(const HttpResponse& response) {
    return response.status == 0 || response.status == 429 || response.status >= 500;
}

CallResult call_with_retry(const std::function<HttpResponse()>& request, const RetryPolicy& policy,
                           const std::function<bool(std::chrono::milliseconds)>& wait,
                           CallCounts& counts) {
    CallResult result;
    for (int attempt = 1;; ++attempt) {
        result.attempts = attempt;
        counts.requests += 1;
        result.last = request();
        if (result.last.status >= 200 && result.last.status < 300) {
            result.kind = CallResult::Kind::ok;
            return result;
        }
        if (!is_retryable(result.last)) {
            result.kind = CallResult::Kind::rejected;
            return result;
        }
        if (attempt >= policy.max_attempts) {
            result.kind = CallResult::Kind::unreachable;
            return result;
        }
        if (!wait(retry_delay(policy, attempt, result.last))) {
            result.kind = CallResult::Kind::aborted;
            return result;
        }
        counts.retries += 1;
    }
}

std::string describe_failure(const CallResult& result) {
    if (result.last.status == 0) {
        return result.last.transport_error;
    }
    const auto error = result.error();
    if (error.error_code.empty()) {
        return fmt::format("HTTP {}: {}", result.last.status, error.message);
    }
    return fmt::format("HTTP {} {}: {}", result.last.status, error.error_code, error.message);
}

}  // namespace kftrain::trainer::mlflow
