#pragma once

// Which device a rank computes on, decided without torch: a torch translation unit finds
// the facts (probe_torch_cuda() below, defined in torch_cuda.cpp) and this file turns them and
// --device into a choice.

#include <string>

#include "util/result.h"

namespace kftrain::trainer {

// Hold what libtorch offers for CUDA.
struct TorchCuda {
    // libtorch was built with CUDA (Debian's libtorch is a CPU build).
    bool built = false;
    // CUDA devices libtorch sees (0 when none is visible or it is a CPU build).
    int devices = 0;
};

// Ask libtorch whether it is a CUDA build and how many CUDA devices it sees (cheap: creates
// no CUDA context). Defined in a torch translation unit so that callers need no torch header.
TorchCuda probe_torch_cuda();

// Resolve --device auto|cpu|cuda for the process with local_rank to "cpu" or "cuda:N",
// N = local_rank % devices: auto means cuda when a device is visible, cuda requires one.
// Errors name the flag, why and the value.
util::Result<std::string> choose_device(const std::string& flag, int local_rank,
                                        const TorchCuda& cuda);

// Resolve --memory-format auto|channels-last|contiguous to whether the convolutions run
// channels last: auto takes it for a convolutional network on the CPU, where oneDNN's
// convolutions were measured faster on it, and leaves other networks and CUDA contiguous.
bool choose_channels_last(const std::string& flag, bool convolutional, bool on_cuda);

}  // namespace kftrain::trainer
