#pragma once

#include <cstdint>
#include <vector>

namespace kftrain::trainer::data {

// Return the per-rank sample count of DistributedSampler for n samples on world ranks.
int64_t sampler_num_samples(int64_t n, int world, bool drop_last);

// Return the indices rank takes from order (a permutation of 0..n-1, or the identity),
// padded or truncated like torch.utils.data.DistributedSampler.
std::vector<int64_t> shard_indices(const std::vector<int64_t>& order, int rank, int world,
                                   bool drop_last);

// Return the indices rank takes for evaluation: rank, rank+world, ... below n, no padding.
std::vector<int64_t> eval_indices(int64_t n, int rank, int world);

}  // namespace kftrain::trainer::data
