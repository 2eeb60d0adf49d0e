#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kftrain::trainer::comm {

// Default capacities, like DistributedDataParallel: a small first bucket, then 25 MiB.
constexpr std::size_t k_first_bucket_bytes = 1024 * 1024;
constexpr std::size_t k_bucket_bytes = 25 * 1024 * 1024;

// Group parameters (given by size in bytes, in model order) into buckets, filled in reverse
// order, the order gradients become ready; each bucket lists parameter indices.
std::vector<std::vector<std::size_t>> assign_buckets(const std::vector<std::size_t>& param_bytes,
                                                     std::size_t first_cap = k_first_bucket_bytes,
                                                     std::size_t cap = k_bucket_bytes);

}  // namespace kftrain::trainer::comm
