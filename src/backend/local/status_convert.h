#pragma once

#include <optional>
#include <vector>

#include "backend/local/state/job_state.h"
#include "backend/local/state/last_word.h"
#include "job/status.h"

namespace kftrain::backend::local {

// What is seen of a local job beside its state.json: its processes in /proc (a pid counts
// only with the start time recorded for it) and the supervisor's last word.
struct Observed {
    bool supervisor_alive = false;
    std::vector<bool> replica_alive;  // by index of state.replicas; missing: not alive
    std::optional<LastWord> last_word;
};

// Return the status a local job shows, from its state.json and what is seen. While the
// supervisor runs, state.json is current (a failing save is a diagnosis). When it is gone
// before the job ended: the outcome it could not save (supervisor.json), else reason
// SupervisorLost: the job Running while replicas still run (shown Running), Failed once none
// does. Credentials in the message are masked.
job::JobStatus status_from_state(const JobState& state, const Observed& seen);

// Return the status with only the supervisor's liveness known (no replica seen running).
job::JobStatus status_from_state(const JobState& state, bool supervisor_alive);

// Return the trainerStatus a replica last posted to the job's status server, as progress.
std::optional<job::Progress> posted_progress_of(const JobState& state);

}  // namespace kftrain::backend::local
