#pragma once

#include <string>

#include "cli/job/status.h"
#include "cli/local/job_state.h"

namespace kftrain::cli::local {

// Return the longer account `describe` prints.
std::string describe_text(const JobState& state, const job::JobStatus& status);

}  // namespace kftrain::cli::local
