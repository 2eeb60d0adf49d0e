#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/job/status.h"

namespace kftrain::cli::view {

// Parse one trainer JSON line (any event) into Progress; nullopt when the
// line is not a JSON object with a string "event".
std::optional<job::Progress> parse_progress_line(const std::string& line);

// Return whether status should show this event as the job's progress
// (progress, epoch and finish carry loss, speed and ETA).
bool shows_progress(const job::Progress& progress);

// Return the last line among these that shows progress, parsed.
std::optional<job::Progress> last_progress(const std::vector<std::string>& lines);

// Format an event readably, e.g.
// "epoch 2/3 step 120/469 loss 0.3121 acc 91.2% 1234 samples/s ETA 1m40s".
std::string format_progress(const job::Progress& progress);

// Format a trainer JSON line readably; nullopt when it is not one (shown as is).
std::optional<std::string> format_trainer_line(const std::string& line);

}  // namespace kftrain::cli::view
