#pragma once

#include <optional>
#include <string>

#include "job/status.h"

namespace kftrain::cli::view {

// Format an event readably, e.g.
// "epoch 2/3 step 120/469 loss 0.3121 acc 91.2% 1234 samples/s ETA 1m40s".
std::string format_progress(const job::Progress& progress);

// Format what the program last said of its checkpoints: "step 938: /ckpt/ckpt-00000938.pt", or
// "step 1407 NOT written: No space left on device; a resume starts from step 938".
std::string format_checkpoint(const job::CheckpointReport& checkpoint);

// Format a trainer JSON line readably; nullopt when it is not one (shown as is).
std::optional<std::string> format_trainer_line(const std::string& line);

}  // namespace kftrain::cli::view
