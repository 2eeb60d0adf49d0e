#pragma once

#include "util/result.h"

namespace kftrain::trainer {

struct Session;

// Load the session's data sets as tensors with their normalisation, count this rank's shard
// and steps per epoch, and build the model on the session's device in its memory format.
util::Status setup_data(Session& s);

}  // namespace kftrain::trainer
