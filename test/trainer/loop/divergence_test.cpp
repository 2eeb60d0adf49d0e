#include "trainer/loop/divergence.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using namespace kftrain::trainer;

namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
constexpr double k_inf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("the divergence guard stops after patience non-finite steps in a row",
          "[trainer][divergence]") {
    DivergenceGuard guard(3);
    CHECK_FALSE(guard.record(1, 2.3, 0));
    CHECK_FALSE(guard.unhealthy());
    CHECK_FALSE(guard.record(2, k_nan, 1));
    CHECK(guard.unhealthy());
    CHECK(guard.streak_started());
    CHECK(guard.warning() ==
          "loss is nan at step 2: the run stops if it stays NaN or infinite for 3 step(s) in a "
          "row (--nan-patience)");
    CHECK_FALSE(guard.record(3, k_inf, 2));
    CHECK_FALSE(guard.streak_started());
    CHECK(guard.record(4, k_nan, 1));
    CHECK(guard.error(0, true) ==
          "loss is not finite (nan) for the last 3 step(s), up to step 4 (--nan-patience 3): "
          "training diverged (lower --lr?); stopped without checkpointing that state; the newest "
          "checkpoint, from step 0, is kept");
}

TEST_CASE("a finite step resets the divergence guard's count", "[trainer][divergence]") {
    DivergenceGuard guard(2);
    CHECK_FALSE(guard.record(1, k_nan, 1));
    CHECK_FALSE(guard.record(2, 1.5, 0));
    CHECK_FALSE(guard.unhealthy());
    CHECK_FALSE(guard.record(3, k_inf, 1));
    CHECK(guard.streak_started());
    CHECK(guard.warning() ==
          "loss is inf at step 3: the run stops if it stays NaN or infinite for 2 step(s) in a "
          "row (--nan-patience)");
    CHECK(guard.record(4, -k_inf, 1));
}

TEST_CASE("a non-finite sum counts even when no rank reported one", "[trainer][divergence]") {
    DivergenceGuard guard(1);
    CHECK(guard.record(7, k_inf, 0));
}

TEST_CASE("the divergence error says when training ended unhealthy and what was kept",
          "[trainer][divergence]") {
    DivergenceGuard guard(5);
    guard.record(32, k_nan, 1);
    CHECK(guard.error(-1, true) ==
          "loss is not finite (nan) for the last 1 step(s), up to step 32 when training ended: "
          "training diverged (lower --lr?); stopped without checkpointing that state; no "
          "checkpoint was written");
    CHECK(guard.error(-1, false) ==
          "loss is not finite (nan) for the last 1 step(s), up to step 32 when training ended: "
          "training diverged (lower --lr?); stopped without checkpointing that state");
    CHECK(nonfinite_text(-k_inf) == "-inf");
}
