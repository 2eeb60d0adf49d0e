#pragma once

#include "cli/job/status.h"
#include "cli/local/job_state.h"

namespace kftrain::cli::local {

// Return the status a local job shows, from its state.json. When the
// supervisor is gone (supervisor_alive false) before the job ended, the job
// is Failed with reason SupervisorLost.
job::JobStatus status_from_state(const JobState& state, bool supervisor_alive);

}  // namespace kftrain::cli::local
