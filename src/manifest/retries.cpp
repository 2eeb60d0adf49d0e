#include "manifest/retries.h"

#include <algorithm>

namespace kftrain::manifest {

int backoff_limit_for_retries(int retries) {
    retries = std::clamp(retries, 0, k_max_retries);
    return retries == 0 ? 0 : retries + 1;
}

int retries_of_backoff_limit(int limit) {
    return std::max(limit - 1, 0);
}

std::optional<int> job_retries(const std::optional<int>& backoff_limit) {
    if (!backoff_limit) {
        return std::nullopt;
    }
    return retries_of_backoff_limit(*backoff_limit);
}

}  // namespace kftrain::manifest
