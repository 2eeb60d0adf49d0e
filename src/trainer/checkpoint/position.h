#pragma once

#include <cstdint>

namespace kftrain::trainer::checkpoint {

// Hold where training stands: epochs fully done and optimizer steps taken.
struct TrainPosition {
    int64_t epoch = 0;
    int64_t global_step = 0;
};

// Where a resumed run goes on, and whether that is not where the checkpoint's step says.
struct ResumePosition {
    TrainPosition pos;
    bool epoch_restarted = false;
};

// Place a checkpoint's position in this run's epochs of steps_per_epoch steps. A checkpoint
// counts steps in the epochs of the run that wrote it; another world size, batch size or
// sample count changes their length, and its step then falls in another epoch than the one it
// was written in (half an epoch skipped, or one run twice). Then the run goes on from the
// first step of the epoch the checkpoint was in, its step counted in this run's epochs.
ResumePosition resume_position(TrainPosition saved, int64_t steps_per_epoch);

}  // namespace kftrain::trainer::checkpoint
