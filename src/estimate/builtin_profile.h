#pragma once

#include <string>

#include "estimate/device.h"
#include "estimate/profile.h"
#include "util/result.h"

namespace kftrain::estimate {

// Make a profile without measuring: parameters and FLOPs counted from the model's layers
// for the data set's images, compute time = 3 x forward FLOPs x batch / device FLOP/s
// (backward twice the forward), FP32 gradients, no overlap.
util::Result<Profile> builtin_profile(const std::string& model, const std::string& dataset,
                                      int batch_size, const DeviceSpeed& device);

}  // namespace kftrain::estimate
