#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "trainer/checkpoint/files.h"
#include "trainer/checkpoint/position.h"
#include "trainer/models.h"
#include "util/result.h"

namespace kftrain::trainer::checkpoint {

// Serialise the model, the optimizer (momentum or Adam moments included) and the position.
std::string checkpoint_bytes(Net& model, torch::optim::Optimizer& optimizer, TrainPosition pos);

// Restore what checkpoint_bytes saved (a checkpoint file's payload, out of its frame) onto the
// device of the model's parameters, whichever device it was saved from; name is used in errors.
// A checkpoint whose parameters or buffers have other shapes than the model's (another image
// size, another model) is refused, the first such tensor named, and the model left as it was.
util::Result<TrainPosition> load_checkpoint_bytes(const std::string& bytes, const std::string& name,
                                                  Net& model, torch::optim::Optimizer& optimizer);

// Resume from dir: load its newest usable checkpoint into model and optimizer
// (choose_checkpoint with load_checkpoint_bytes) and set pos to its position; pos stays as
// it is when dir holds no checkpoint.
util::Result<ResumeChoice> load_newest_usable(const std::string& dir, Net& model,
                                              torch::optim::Optimizer& optimizer,
                                              TrainPosition& pos);

// Write checkpoint bytes in a checksummed frame (checkpoint/frame.h) to path atomically.
util::Status save_checkpoint(const std::string& path, Net& model,
                             torch::optim::Optimizer& optimizer, TrainPosition pos);

// Write all parameters as raw little-endian float32 values, in model order, from any device
// (for tests).
util::Status write_params_dump(const std::string& path, Net& model);

}  // namespace kftrain::trainer::checkpoint
