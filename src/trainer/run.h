#pragma once

#include <ostream>

#include "trainer/device.h"
#include "trainer/env.h"
#include "trainer/options.h"

namespace kftrain::trainer {

// Exit code after a SIGTERM stop (a checkpoint was written when a directory was given).
constexpr int k_exit_terminated = 143;

// Train (the epoch loop: steps, progress, evaluation, checkpoints), or benchmark with
// --benchmark, as the rank env describes; print events to out/err and return the exit code
// (0 done, 1 failed, 143 stopped by SIGTERM).
int run_trainer(const TrainOptions& options, const DistEnv& env, std::ostream& out,
                std::ostream& err);

// Ask libtorch whether it is a CUDA build and how many CUDA devices it sees (cheap: creates
// no CUDA context). Defined in a torch translation unit so that callers need no torch header.
TorchCuda probe_torch_cuda();

}  // namespace kftrain::trainer
