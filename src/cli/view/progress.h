#pragma once

#include <optional>
#include <string>

#include "job/status.h"

namespace kftrain::cli::view {

// Format an event readably, e.g.
// "epoch 2/3 step 120/469 loss 0.3121 acc 91.2% 1234 samples/s ETA 1m40s".
std::string format_progress(const job::Progress& progress);

// Format a trainer JSON line readably; nullopt when it is not one (shown as is).
std::optional<std::string> format_trainer_line(const std::string& line);

}  // namespace kftrain::cli::view
