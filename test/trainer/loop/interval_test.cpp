#include "trainer/loop/interval.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using namespace kftrain::trainer;

namespace {

constexpr double k_no_number = std::numeric_limits<double>::quiet_NaN();
constexpr double k_infinite = std::numeric_limits<double>::infinity();

// Sum packed numbers element by element, as the all-reduce over ranks does.
std::vector<double> sum(const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        out[i] = a[i] + b[i];
    }
    return out;
}

}  // namespace

TEST_CASE("an interval's loss and accuracy are means over every sample of every rank",
          "[trainer][interval]") {
    const auto rank0 = pack_interval({2.0, 1.0}, {4, 4}, 5, false);
    const auto rank1 = pack_interval({4.0, 3.0}, {4, 2}, 3, false);
    const auto s = unpack_interval(sum(rank0, rank1), 2);
    REQUIRE(s.steps() == 2);
    CHECK(s.step_loss(0) == Approx(3.0));
    CHECK(s.step_loss(1) == Approx((1.0 * 4 + 3.0 * 2) / 6));
    CHECK(s.loss_sum == Approx(2.0 * 4 + 1.0 * 4 + 4.0 * 4 + 3.0 * 2));
    CHECK(s.count == 14);
    CHECK(s.correct == 8);
    CHECK_FALSE(s.stop);
    CHECK(s.step_nonfinite == std::vector<double>{0, 0});
}

TEST_CASE("a non-finite loss on one rank marks that step on every rank", "[trainer][interval]") {
    const auto rank0 = pack_interval({1.0, 1.0, 1.0}, {8, 8, 8}, 20, false);
    const auto rank1 = pack_interval({1.0, k_no_number, k_infinite}, {8, 8, 8}, 10, false);
    const auto s = unpack_interval(sum(rank0, rank1), 3);
    CHECK(s.step_nonfinite == std::vector<double>{0, 1, 1});
    CHECK(std::isfinite(s.step_loss(0)));
    CHECK(std::isnan(s.step_loss(1)));
    CHECK(std::isinf(s.step_loss(2)));
    CHECK(std::isnan(s.loss_sum));
}

TEST_CASE("one rank's stop flag stops every rank", "[trainer][interval]") {
    const auto s = unpack_interval(
        sum(pack_interval({0.5}, {8}, 4, false), pack_interval({0.5}, {8}, 4, true)), 1);
    CHECK(s.stop);
}

TEST_CASE("an interval of no steps carries only the stop flag", "[trainer][interval]") {
    const auto s = unpack_interval(pack_interval({}, {}, 0, true), 0);
    CHECK(s.steps() == 0);
    CHECK(s.count == 0);
    CHECK(s.stop);
}

TEST_CASE("each rank's compute time travels in its own slot of the one all-reduce",
          "[trainer][interval]") {
    const auto rank0 = pack_interval({1.0, 1.0}, {4, 4}, 5, false, RankTime{0, 2, 0.25});
    const auto rank1 = pack_interval({1.0, 1.0}, {4, 4}, 3, false, RankTime{1, 2, 0.75});
    REQUIRE(rank0.size() == 3 * 2 + 2 + 2);
    const auto s = unpack_interval(sum(rank0, rank1), 2, 2);
    CHECK(s.rank_compute_s == std::vector<double>{0.25, 0.75});
    CHECK(s.correct == 8);  // the other sums are as before
    CHECK(unpack_interval(sum(rank0, rank1), 2).rank_compute_s.empty());
}
