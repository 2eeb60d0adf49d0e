#include "trainer/loop/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace kftrain::trainer {

double lr_at(const LrSchedule& s, int64_t global_step) {
    const double target = s.base_lr * (s.scale_by_world ? s.world_size : 1);
    const int64_t per_epoch = std::max<int64_t>(s.steps_per_epoch, 1);
    const int64_t epoch = global_step / per_epoch;
    const int64_t warmup_steps = static_cast<int64_t>(s.warmup_epochs) * per_epoch;
    double lr = target;
    if (global_step < warmup_steps) {
        lr = target * static_cast<double>(global_step + 1) / static_cast<double>(warmup_steps);
    }
    if (s.step_epochs > 0) {
        lr *= std::pow(s.gamma, static_cast<double>(epoch / s.step_epochs));
    }
    return lr;
}

}  // namespace kftrain::trainer
