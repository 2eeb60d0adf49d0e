#include "trainer/comm/buckets.h"

#include <catch2/catch.hpp>

using namespace kftrain::trainer::comm;

TEST_CASE("assign_buckets fills buckets in reverse parameter order", "[trainer][buckets]") {
    const std::vector<std::size_t> bytes{10, 20, 30, 40};
    const auto buckets = assign_buckets(bytes, 50, 50);
    REQUIRE(buckets.size() == 2);
    CHECK(buckets[0] == std::vector<std::size_t>{3, 2});
    CHECK(buckets[1] == std::vector<std::size_t>{1, 0});
}

TEST_CASE("assign_buckets uses a small first bucket then the large cap", "[trainer][buckets]") {
    const std::size_t mib = 1024 * 1024;
    const std::vector<std::size_t> bytes(40, mib);  // 40 parameters of 1 MiB each
    const auto buckets = assign_buckets(bytes);
    REQUIRE(buckets.size() == 3);
    CHECK(buckets[0].size() == 1);
    CHECK(buckets[1].size() == 25);
    CHECK(buckets[2].size() == 14);
}

TEST_CASE("assign_buckets places every parameter exactly once", "[trainer][buckets]") {
    const std::vector<std::size_t> bytes{5, 300, 7, 2'000'000, 9, 30'000'000, 1};
    std::vector<int> count(bytes.size(), 0);
    for (const auto& b : assign_buckets(bytes)) {
        for (auto i : b) {
            count[i] += 1;
        }
    }
    CHECK(count == std::vector<int>(bytes.size(), 1));
}

TEST_CASE("assign_buckets of a model smaller than the first cap is one bucket",
          "[trainer][buckets]") {
    CHECK(assign_buckets({100, 200, 300}).size() == 1);
    CHECK(assign_buckets({}).empty());
}

TEST_CASE("fit_link_cost splits two timings into a fixed part and a part per byte",
          "[trainer][buckets]") {
    // 4 KiB in 100 us, 4 MiB in 2.1 ms: 2 ms per (4 MiB - 4 KiB).
    const auto link = fit_link_cost(4096, 100e-6, 4096 * 1024, 2.1e-3);
    CHECK(link.s_per_byte == Approx(2e-3 / (4096.0 * 1023)));
    CHECK(link.latency_s == Approx(100e-6 - 4096 * link.s_per_byte));
    // Noise that makes the large one faster: no cost per byte, the larger time as latency.
    const auto noisy = fit_link_cost(4096, 300e-6, 4096 * 1024, 200e-6);
    CHECK(noisy.s_per_byte == 0);
    CHECK(noisy.latency_s == Approx(300e-6));
}

TEST_CASE("bucket_bytes_for picks buckets ten times the size the latency is worth",
          "[trainer][buckets]") {
    const std::size_t kib = 1024, mib = 1024 * kib;
    // 50 us fixed, 1 GB/s: the fixed cost is worth 50 KB, a tenth of 500 KB.
    CHECK(bucket_bytes_for({50e-6, 1e-9}) == 488 * kib);
    // A fast link with a high fixed cost (NVLink-like): large buckets, up to 25 MiB.
    // 20 us fixed, 100 GB/s: 20 MB.
    CHECK(bucket_bytes_for({20e-6, 1e-11}) == 19531 * kib);
    CHECK(bucket_bytes_for({1e-3, 1e-10}) == 25 * mib);
    // A slow link with little fixed cost: down to 256 KiB, not below.
    CHECK(bucket_bytes_for({1e-6, 1e-8}) == 256 * kib);
    // Nothing measured per byte: the fewest buckets.
    CHECK(bucket_bytes_for({1e-4, 0}) == 25 * mib);
    // Whole KiB, so that ranks agreeing on the cost agree on the bytes.
    CHECK(bucket_bytes_for({33.3e-6, 0.77e-9}) % kib == 0);
}
