#include "job/lifecycle.h"

#include <fmt/format.h>

#include <algorithm>

#include "job/exit_codes.h"

namespace kftrain::job {
namespace {

// A replica that holds resources: a pod that exists and has not ended, a live process.
bool holds_resources(const ReplicaStatus& replica) {
    return replica.state == "Pending" || replica.state == "Running" ||
           replica.state == "Restarting" || replica.state == "Unknown";
}

// A pod being deleted still runs its container (the trainer checkpointing after SIGTERM) and
// holds its node's resources until it is gone.
bool stopping(const ReplicaStatus& replica) {
    return replica.state == "Terminating";
}

bool any_replica(const JobStatus& status, bool (*matches)(const ReplicaStatus&)) {
    return std::any_of(status.replicas.begin(), status.replicas.end(), matches);
}

}  // namespace

const char* change_verb(Change change) {
    return change == Change::Suspend ? "suspend" : "resume";
}

util::Status check_change(Change change, const JobStatus& status) {
    if (!is_finished(status.phase)) {
        return util::ok_status();
    }
    return util::error(
        fmt::format("cannot {} {}: it has already {} and will not run again", change_verb(change),
                    job_ref(status.kind, status.name), phase_name(status.phase)),
        k_exit_bad_input);
}

bool change_settled(Change change, const JobStatus& status) {
    if (change == Change::Suspend) {
        return status.phase == JobPhase::Suspended && !any_replica(status, holds_resources) &&
               !any_replica(status, stopping);
    }
    if (status.phase == JobPhase::Suspended) {
        return false;
    }
    return is_finished(status.phase) || any_replica(status, holds_resources);
}

util::Status check_scale(const std::string& job, int workers, const ElasticBounds& bounds) {
    const std::string range = bounds.max_replicas > 0
                                  ? fmt::format("{}..{}", bounds.min_replicas, bounds.max_replicas)
                                  : fmt::format("{} or more", bounds.min_replicas);
    if (workers < bounds.min_replicas ||
        (bounds.max_replicas > 0 && workers > bounds.max_replicas)) {
        return util::error(
            fmt::format("--replicas: must be within {}'s elasticPolicy minReplicas..maxReplicas "
                        "({}) (got {})",
                        job, range, workers),
            k_exit_bad_input);
    }
    return util::ok_status();
}

}  // namespace kftrain::job
