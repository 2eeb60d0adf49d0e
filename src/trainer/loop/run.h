#pragma once

#include <ostream>

#include "trainer/startup/env.h"
#include "trainer/startup/options.h"

namespace kftrain::trainer {

// Train (the epoch loop: steps, progress, evaluation, checkpoints), or benchmark with
// --benchmark, as the rank env describes; print events to out/err and return the exit code
// (0 done, 1 failed, 143 stopped by SIGTERM).
int run_trainer(const TrainOptions& options, const DistEnv& env, std::ostream& out,
                std::ostream& err);

}  // namespace kftrain::trainer
