#pragma once

#include "util/result.h"

namespace kftrain::trainer {

struct Session;

// Connect the session to its peers, check that every rank runs rank 0's settings, choose the
// backend, give every rank rank 0's parameters and set up the gradient reducer.
util::Status setup_comm(Session& s);

}  // namespace kftrain::trainer
