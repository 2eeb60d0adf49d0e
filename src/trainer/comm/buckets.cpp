#include "trainer/comm/buckets.h"

#include <algorithm>
#include <cmath>

namespace kftrain::trainer::comm {

std::vector<std::vector<std::size_t>> assign_buckets(const std::vector<std::size_t>& param_bytes,
                                                     std::size_t first_cap, std::size_t cap) {
    std::vector<std::vector<std::size_t>> buckets;
    std::vector<std::size_t> current;
    std::size_t current_bytes = 0;
    for (std::size_t i = param_bytes.size(); i-- > 0;) {
        current.push_back(i);
        current_bytes += param_bytes[i];
        const std::size_t limit = buckets.empty() ? first_cap : cap;
        if (current_bytes >= limit) {
            buckets.push_back(std::move(current));
            current.clear();
            current_bytes = 0;
        }
    }
    if (!current.empty()) {
        buckets.push_back(std::move(current));
    }
    return buckets;
}

LinkCost fit_link_cost(std::size_t small_bytes, double small_s, std::size_t large_bytes,
                       double large_s) {
    if (large_bytes <= small_bytes || large_s <= small_s) {
        return {std::max({small_s, large_s, 0.0}), 0};
    }
    const double per_byte = (large_s - small_s) / static_cast<double>(large_bytes - small_bytes);
    return {std::max(0.0, small_s - per_byte * static_cast<double>(small_bytes)), per_byte};
}

std::size_t bucket_bytes_for(const LinkCost& link) {
    // Fixed cost <= a tenth of the byte time: bytes >= 10 * latency / per-byte cost.
    constexpr double k_fixed_share = 0.1;
    const double lo = static_cast<double>(k_min_auto_bucket_bytes);
    const double hi = static_cast<double>(k_max_auto_bucket_bytes);
    double bytes = hi;  // no per-byte cost measured: the fewest buckets
    if (link.s_per_byte > 0 && std::isfinite(link.s_per_byte) && std::isfinite(link.latency_s)) {
        bytes = std::clamp(link.latency_s / k_fixed_share / link.s_per_byte, lo, hi);
    }
    constexpr std::size_t k_kib = 1024;
    return static_cast<std::size_t>(std::llround(bytes / k_kib)) * k_kib;
}

}  // namespace kftrain::trainer::comm
