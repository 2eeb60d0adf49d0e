#pragma once

#include <cstdint>

namespace kftrain::trainer {

// Hold the learning-rate schedule's settings.
struct LrSchedule {
    double base_lr = 0.01;
    bool scale_by_world = false;
    int world_size = 1;
    int warmup_epochs = 0;
    int step_epochs = 0;
    double gamma = 0.1;
    int64_t steps_per_epoch = 1;
};

// Return the learning rate for the step global_step (0-based): linear scaling by world size,
// then a linear warmup over warmup_epochs, then decay by gamma every step_epochs epochs.
double lr_at(const LrSchedule& s, int64_t global_step);

}  // namespace kftrain::trainer
