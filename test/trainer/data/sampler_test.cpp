#include "trainer/data/sampler.h"

#include <catch2/catch.hpp>
#include <numeric>

using namespace kftrain::trainer::data;

namespace {

std::vector<int64_t> iota(int64_t n) {
    std::vector<int64_t> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), 0);
    return v;
}

}  // namespace

TEST_CASE("shard_indices matches DistributedSampler: pad, then stride by world size",
          "[trainer][sampler]") {
    struct Case {
        const char* name;
        std::vector<int64_t> order;
        int world;
        bool drop_last;
        std::vector<std::vector<int64_t>> expected;
    };
    const std::vector<Case> cases = {
        {"even split", iota(6), 2, false, {{0, 2, 4}, {1, 3, 5}}},
        {"pads with the first indices",
         iota(10),
         3,
         false,
         {{0, 3, 6, 9}, {1, 4, 7, 0}, {2, 5, 8, 1}}},
        {"drop_last truncates", iota(10), 3, true, {{0, 3, 6}, {1, 4, 7}, {2, 5, 8}}},
        {"repeats when fewer samples than ranks", iota(2), 4, false, {{0}, {1}, {0}, {1}}},
        {"keeps the permutation's order", {3, 1, 2, 0, 4}, 2, false, {{3, 2, 4}, {1, 0, 3}}},
        {"one rank takes everything", {2, 0, 1}, 1, false, {{2, 0, 1}}},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            for (int r = 0; r < c.world; ++r) {
                CHECK(shard_indices(c.order, r, c.world, c.drop_last) == c.expected[r]);
            }
        }
    }
}

TEST_CASE("sampler_num_samples is ceil(N/R), or ceil((N-R)/R) with drop_last",
          "[trainer][sampler]") {
    CHECK(sampler_num_samples(10, 3, false) == 4);
    CHECK(sampler_num_samples(10, 3, true) == 3);
    CHECK(sampler_num_samples(9, 3, true) == 3);
    CHECK(sampler_num_samples(60000, 7, false) == 8572);
}

TEST_CASE("every sample is seen once per epoch across ranks when N divides evenly",
          "[trainer][sampler]") {
    std::vector<int64_t> seen;
    for (int r = 0; r < 4; ++r) {
        auto mine = shard_indices(iota(100), r, 4, false);
        seen.insert(seen.end(), mine.begin(), mine.end());
    }
    std::sort(seen.begin(), seen.end());
    CHECK(seen == iota(100));
}

TEST_CASE("eval_indices splits the test set without padding", "[trainer][sampler]") {
    CHECK(eval_indices(5, 0, 2) == std::vector<int64_t>{0, 2, 4});
    CHECK(eval_indices(5, 1, 2) == std::vector<int64_t>{1, 3});
}
