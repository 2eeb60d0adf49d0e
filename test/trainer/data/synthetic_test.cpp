#include "trainer/data/synthetic.h"

#include <catch2/catch.hpp>

using namespace kftrain::trainer::data;

TEST_CASE("synthetic data is the same for the same seed", "[trainer][synthetic]") {
    const auto a = make_synthetic(20, 1, 28, 28, 5);
    const auto b = make_synthetic(20, 1, 28, 28, 5);
    CHECK(a.pixels == b.pixels);
    CHECK(a.labels == b.labels);
    const auto c = make_synthetic(20, 1, 28, 28, 6);
    CHECK(a.pixels != c.pixels);
}

TEST_CASE("synthetic data covers every class with valid labels", "[trainer][synthetic]") {
    const auto set = make_synthetic(500, 3, 32, 32, 1);
    CHECK(set.pixels.size() == 500u * 3 * 32 * 32);
    std::vector<int> per_class(k_num_classes, 0);
    for (auto label : set.labels) {
        REQUIRE(label < k_num_classes);
        per_class[label] += 1;
    }
    for (int n : per_class) {
        CHECK(n > 20);
    }
}
