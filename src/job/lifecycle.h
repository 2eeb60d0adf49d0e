#pragma once

#include <string>

#include "job/status.h"
#include "util/result.h"

namespace kftrain::job {

// Pure checks of `suspend`, `resume` and `scale`: what may be asked of a job in a state, and
// when the change has taken effect. Both backends and both kinds share them.

// What a lifecycle verb asks for.
enum class Change { Suspend, Resume };

// Return "suspend" or "resume".
const char* change_verb(Change change);

// Check that a job in this status may take the change: a finished job can be neither
// suspended nor resumed (exit 2, naming the job and its state).
util::Status check_change(Change change, const JobStatus& status);

// Return whether the change has taken effect: suspended, the job says Suspended and none of
// its replicas runs (no pod is left, no process lives); resumed, the job is no longer
// Suspended and a replica is back (pending or running), or it has ended since.
bool change_settled(Change change, const JobStatus& status);

// An elastic PyTorchJob's bounds for its Worker replicas (elasticPolicy).
struct ElasticBounds {
    int min_replicas = 1;  // elasticPolicy.minReplicas, 1 when not set
    int max_replicas = 0;  // elasticPolicy.maxReplicas, 0 when not set (no upper bound)
};

// Check --replicas (the Worker replicas wanted) against a job's elastic bounds; the message
// names the flag, the value and the bounds.
util::Status check_scale(const std::string& job, int workers, const ElasticBounds& bounds);

}  // namespace kftrain::job
