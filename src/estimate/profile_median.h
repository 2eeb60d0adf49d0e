#pragma once

#include <vector>

#include "estimate/profile.h"
#include "util/result.h"

namespace kftrain::estimate {

// Combine profiles measured alike (one model, dataset, batch, threads, world size, gradient
// compression and backend) into one whose every timing is their median, so that one
// measurement caught in a slow spell of the machine does not move the estimate, and whose
// blocks of steps are all of theirs (the range); the source names them all and the range of
// their compute per step. Profiles measured otherwise are
// refused, naming the field that differs.
util::Result<Profile> median_profile(const std::vector<Profile>& repeats);

}  // namespace kftrain::estimate
