#pragma once

#include <string>

#include "backend/local/state/job_state.h"
#include "backend/local/status_convert.h"

namespace kftrain::backend::local {

// Return whether a job's supervisor still runs (its pid, with the recorded start time).
bool supervisor_alive(const JobState& state);

// Return whether a replica's process runs: its pid alive with the start time recorded for
// it, so a later process that got the pid is not taken for it.
bool replica_alive(const ReplicaState& replica);

// Return whether anything of the job runs: its supervisor or any replica.
bool job_active(const JobState& state);

// Look at a job's processes in /proc and read its supervisor's last word.
Observed observe_job(const JobState& state);

// Stop a job's processes: SIGTERM to its supervisor (which stops the
// replicas), SIGKILL to anything left after the grace period, also replicas
// that run without a supervisor.
void stop_processes(const JobState& state);

// Return what can be identified of a job's processes in a state.json that does not read as
// a whole (pids with their start times, where they are numbers); nothing when it is not JSON.
JobState salvage_processes(const std::string& state_text);

}  // namespace kftrain::backend::local
