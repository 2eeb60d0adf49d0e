#include "trainer/checkpoint/position.h"

namespace kftrain::trainer::checkpoint {

ResumePosition resume_position(TrainPosition saved, int64_t steps_per_epoch) {
    if (steps_per_epoch <= 0 || saved.global_step / steps_per_epoch == saved.epoch) {
        return {saved, false};
    }
    return {{saved.epoch, saved.epoch * steps_per_epoch}, true};
}

}  // namespace kftrain::trainer::checkpoint
