#pragma once

#include "cli/local/job_state.h"

namespace kftrain::cli::local {

// Return whether a job's supervisor still runs.
bool supervisor_alive(const JobState& state);

// Stop a job's processes: SIGTERM to its supervisor (which stops the
// replicas), SIGKILL to anything left after the grace period.
void stop_processes(const JobState& state);

}  // namespace kftrain::cli::local
