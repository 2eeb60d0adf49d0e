#include "trainer/mlflow/options.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace kftrain::trainer::mlflow {
namespace {

using std::chrono::milliseconds;

// Read a variable as a number within [min, max]; nullopt when unset, and a warning naming
// it, the range and the value when it is not such a number.
std::optional<double> number(const EnvLookup& env, const char* name, double min, double max,
                             const std::string& fallback,
                             const std::function<void(const std::string&)>& warn) {
    const auto raw = env(name);
    if (!raw || raw->empty()) {
        return std::nullopt;
    }
    char* end = nullptr;
    const double value = std::strtod(raw->c_str(), &end);
    if (*end != '\0' || !std::isfinite(value) || value < min || value > max) {
        if (warn) {
            warn(fmt::format("{}: must be a number from {:g} to {:g} (got {}); using {}", name, min,
                             max, *raw, fallback));
        }
        return std::nullopt;
    }
    return value;
}

milliseconds seconds_to_ms(double seconds) {
    return milliseconds(static_cast<long long>(std::llround(seconds * 1000)));
}

std::string seconds_text(milliseconds ms) {
    return fmt::format("{:g}s", static_cast<double>(ms.count()) / 1000);
}

}  // namespace

MlflowOptions read_mlflow_options(const EnvLookup& env,
                                  const std::function<void(const std::string&)>& warn) {
    MlflowOptions o;
    if (auto retries = number(env, "MLFLOW_HTTP_REQUEST_MAX_RETRIES", 0, 100,
                              std::to_string(o.retry.max_attempts - 1), warn)) {
        o.retry.max_attempts = static_cast<int>(*retries) + 1;
    }
    if (auto factor = number(env, "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", 0, 3600,
                             seconds_text(o.retry.first_delay), warn)) {
        o.retry.first_delay = seconds_to_ms(*factor);
        o.retry.max_delay = std::max(o.retry.max_delay, o.retry.first_delay);
    }
    if (auto timeout = number(env, "MLFLOW_HTTP_REQUEST_TIMEOUT", 0.001, 86400,
                              seconds_text(o.request_timeout), warn)) {
        o.request_timeout = seconds_to_ms(*timeout);
    }
    if (auto flush = number(env, "KFTRAIN_MLFLOW_FLUSH_TIMEOUT", 0, 86400,
                            seconds_text(o.flush_budget), warn)) {
        o.flush_budget = seconds_to_ms(*flush);
    }
    return o;
}

}  // namespace kftrain::trainer::mlflow
