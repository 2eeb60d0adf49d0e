#include "trainer/checkpoint/position.h"

#include <catch2/catch.hpp>

using kftrain::trainer::checkpoint::resume_position;
using kftrain::trainer::checkpoint::TrainPosition;

TEST_CASE("a checkpoint's step in epochs of the same length resumes where it was",
          "[trainer][checkpoint]") {
    // End of epoch 2 of 8 steps, and half-way through epoch 3.
    for (const TrainPosition saved : {TrainPosition{2, 16}, TrainPosition{2, 20}}) {
        const auto placed = resume_position(saved, 8);
        CHECK_FALSE(placed.epoch_restarted);
        CHECK(placed.pos.epoch == saved.epoch);
        CHECK(placed.pos.global_step == saved.global_step);
    }
}

TEST_CASE("a checkpoint written with epochs of another length restarts the epoch it was in",
          "[trainer][checkpoint]") {
    // Written by 1 rank with 8 steps per epoch, half-way through epoch 1 (step 4); resumed by
    // 2 ranks with 4 steps per epoch, where step 4 would be the end of epoch 1.
    auto placed = resume_position({0, 4}, 4);
    CHECK(placed.epoch_restarted);
    CHECK(placed.pos.epoch == 0);
    CHECK(placed.pos.global_step == 0);
    // End of epoch 3 of 4 steps (step 12), resumed with 8 steps per epoch: epoch 4 from its
    // first step, counted as 3 epochs of 8.
    placed = resume_position({3, 12}, 8);
    CHECK(placed.epoch_restarted);
    CHECK(placed.pos.epoch == 3);
    CHECK(placed.pos.global_step == 24);
    // Fewer steps per epoch the other way: end of epoch 1 of 8 steps, resumed with 3.
    placed = resume_position({1, 8}, 3);
    CHECK(placed.epoch_restarted);
    CHECK(placed.pos.global_step == 3);
}
