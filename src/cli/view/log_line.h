#pragma once

#include <cstddef>
#include <string>

#include "job/backend.h"

namespace kftrain::cli::view {

// Format one log line as "master-0 | text", the replica padded to width; a
// trainer JSON line (after an optional timestamp) is made readable unless raw.
std::string format_log_line(const job::LogLine& line, bool raw, size_t width = 0);

}  // namespace kftrain::cli::view
