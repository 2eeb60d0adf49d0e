#include "trainer/data/sampler.h"

namespace kftrain::trainer::data {

int64_t sampler_num_samples(int64_t n, int world, bool drop_last) {
    if (drop_last && n % world != 0) {
        return (n - world) / world + ((n - world) % world != 0 ? 1 : 0);
    }
    return (n + world - 1) / world;
}

std::vector<int64_t> shard_indices(const std::vector<int64_t>& order, int rank, int world,
                                   bool drop_last) {
    const auto n = static_cast<int64_t>(order.size());
    const int64_t total = sampler_num_samples(n, world, drop_last) * world;
    std::vector<int64_t> padded(order.begin(), order.begin() + std::min(n, total));
    while (static_cast<int64_t>(padded.size()) < total && n > 0) {
        const int64_t need = total - static_cast<int64_t>(padded.size());
        padded.insert(padded.end(), order.begin(), order.begin() + std::min(need, n));
    }
    std::vector<int64_t> mine;
    for (int64_t i = rank; i < total; i += world) {
        mine.push_back(padded[i]);
    }
    return mine;
}

std::vector<int64_t> eval_indices(int64_t n, int rank, int world) {
    std::vector<int64_t> mine;
    for (int64_t i = rank; i < n; i += world) {
        mine.push_back(i);
    }
    return mine;
}

}  // namespace kftrain::trainer::data
