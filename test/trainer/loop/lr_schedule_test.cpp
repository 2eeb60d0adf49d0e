#include "trainer/loop/lr_schedule.h"

#include <catch2/catch.hpp>

using namespace kftrain::trainer;

TEST_CASE("lr is constant without scaling, warmup or steps", "[trainer][lr]") {
    LrSchedule s;
    s.base_lr = 0.1;
    CHECK(lr_at(s, 0) == Approx(0.1));
    CHECK(lr_at(s, 1000) == Approx(0.1));
}

TEST_CASE("scaling the LR multiplies it by the world size", "[trainer][lr]") {
    LrSchedule s;
    s.base_lr = 0.1;
    s.scale_by_world = true;
    s.world_size = 4;
    CHECK(lr_at(s, 0) == Approx(0.4));
}

TEST_CASE("warmup ramps linearly to the target over the warmup epochs", "[trainer][lr]") {
    LrSchedule s;
    s.base_lr = 1.0;
    s.warmup_epochs = 2;
    s.steps_per_epoch = 5;
    CHECK(lr_at(s, 0) == Approx(0.1));
    CHECK(lr_at(s, 4) == Approx(0.5));
    CHECK(lr_at(s, 9) == Approx(1.0));
    CHECK(lr_at(s, 10) == Approx(1.0));
}

TEST_CASE("step decay multiplies by gamma every lr-step epochs", "[trainer][lr]") {
    LrSchedule s;
    s.base_lr = 1.0;
    s.step_epochs = 2;
    s.gamma = 0.5;
    s.steps_per_epoch = 10;
    CHECK(lr_at(s, 19) == Approx(1.0));
    CHECK(lr_at(s, 20) == Approx(0.5));
    CHECK(lr_at(s, 45) == Approx(0.25));
}
