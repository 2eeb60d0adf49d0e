#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kftrain::trainer::comm {

// Default capacities, like DistributedDataParallel: a small first bucket, then 25 MiB.
constexpr std::size_t k_first_bucket_bytes = 1024 * 1024;
constexpr std::size_t k_bucket_bytes = 25 * 1024 * 1024;
// The range --bucket-mb auto chooses in: below 256 KiB the per-bucket hand-offs dominate
// whatever the link; above 25 MiB a bucket waits long for its last gradient.
constexpr std::size_t k_min_auto_bucket_bytes = 256 * 1024;
constexpr std::size_t k_max_auto_bucket_bytes = k_bucket_bytes;

// Group parameters (given by size in bytes, in model order) into buckets, filled in reverse
// order, the order gradients become ready; each bucket lists parameter indices.
std::vector<std::vector<std::size_t>> assign_buckets(const std::vector<std::size_t>& param_bytes,
                                                     std::size_t first_cap = k_first_bucket_bytes,
                                                     std::size_t cap = k_bucket_bytes);

// What one all-reduce costs on this job's links: a fixed part (launch, hand-offs, round
// trips) and a part per byte, fitted from the times of two sizes.
struct LinkCost {
    double latency_s = 0;
    double s_per_byte = 0;
};

// Fit a LinkCost through two measured all-reduces (small_bytes < large_bytes). A larger
// time for fewer bytes (noise) gives a per-byte cost of 0 and the large one's time as latency.
LinkCost fit_link_cost(std::size_t small_bytes, double small_s, std::size_t large_bytes,
                       double large_s);

// Choose the bucket capacity for a link: the smallest whose fixed cost is at most a tenth of
// the time its bytes take (small buckets start all-reducing earlier in backward, so more of
// it hides behind compute), within [k_min_auto_bucket_bytes, k_max_auto_bucket_bytes] and
// rounded to whole KiB so that every rank, given the same cost, picks the same size.
std::size_t bucket_bytes_for(const LinkCost& link);

}  // namespace kftrain::trainer::comm
