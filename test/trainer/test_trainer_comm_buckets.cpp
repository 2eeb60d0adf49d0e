#include <catch2/catch.hpp>

#include "trainer/comm/buckets.h"

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
