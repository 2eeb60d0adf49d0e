#include "job/status.h"

#include <algorithm>

#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::job {

bool runs_here(const JobStatus& status) {
    return status.backend == manifest::k_backend_local;
}

const char* phase_name(JobPhase phase) {
    switch (phase) {
        case JobPhase::Created:
            return "Created";
        case JobPhase::Running:
            return "Running";
        case JobPhase::Restarting:
            return "Restarting";
        case JobPhase::Succeeded:
            return "Succeeded";
        case JobPhase::Failed:
            return "Failed";
        case JobPhase::Suspended:
            return "Suspended";
        case JobPhase::Unknown:
            break;
    }
    return "Unknown";
}

JobPhase parse_phase(const std::string& name) {
    for (JobPhase phase : {JobPhase::Created, JobPhase::Running, JobPhase::Restarting,
                           JobPhase::Succeeded, JobPhase::Failed, JobPhase::Suspended}) {
        if (name == phase_name(phase)) {
            return phase;
        }
    }
    return JobPhase::Unknown;
}

bool replica_unwell(const ReplicaStatus& r) {
    if (r.restarts > 0) {
        return true;
    }
    return r.state != "Running" && r.state != "Succeeded";
}

std::vector<ReplicaTally> tally_replicas(const std::vector<ReplicaStatus>& replicas) {
    std::vector<ReplicaTally> tallies;
    for (const auto& r : replicas) {
        auto tally = std::find_if(tallies.begin(), tallies.end(),
                                  [&r](const ReplicaTally& t) { return t.type == r.type; });
        if (tally == tallies.end()) {
            tallies.push_back({r.type, 0, {}, 0});
            tally = tallies.end() - 1;
        }
        tally->total += 1;
        tally->states[r.state.empty() ? "Unknown" : r.state] += 1;
        tally->restarts += r.restarts;
    }
    return tallies;
}

const ReplicaStatus* first_failure(const std::vector<ReplicaStatus>& replicas) {
    const ReplicaStatus* first = nullptr;
    for (const auto& r : replicas) {
        const bool failed = r.state == "Failed" || (r.exit_code && *r.exit_code != 0);
        // RFC 3339 times of one clock compare as text; one without a time comes last.
        if (failed &&
            (first == nullptr ||
             (!r.finished.empty() && (first->finished.empty() || r.finished < first->finished)))) {
            first = &r;
        }
    }
    return first;
}

bool followed_among_many(const ReplicaStatus& replica, const std::string& lead) {
    return replica.name == lead || replica.restarts > 0 || replica.state == "Failed";
}

bool replica_matches(const ReplicaStatus& replica, const std::string& wanted) {
    if (wanted.empty()) {
        return true;
    }
    const std::string want = util::to_lower(wanted);
    return want == replica.name || want == util::to_lower(replica.type) || want == replica.pod;
}

std::string no_restart_message(const std::string& job, const std::string& wanted) {
    return "--previous: no replica of " + job + (wanted.empty() ? "" : " matching " + wanted) +
           " has restarted";
}

std::string no_replica_message(const std::string& job, const std::string& wanted,
                               const std::vector<std::string>& names) {
    std::string has = names.empty() ? " (it has none yet)" : "; it has ";
    for (std::size_t i = 0; i < names.size(); ++i) {
        has += (i == 0 ? "" : ", ") + names[i];
    }
    return "--replica: matches no replica of " + job + " by name or type" + has + " (got " +
           wanted + ")";
}

std::string job_ref(const std::string& kind, const std::string& name) {
    return util::to_lower(kind) + "/" + name;
}

std::optional<double> job_duration(const JobStatus& status, std::time_t now) {
    const bool waits_in_queue = status.started.empty() && status.queue &&
                                (status.queue->state == QueueState::Pending ||
                                 status.queue->state == QueueState::QuotaReserved);
    if (waits_in_queue) {
        return 0.0;  // nothing has run yet: its wait is not run time, nor cost
    }
    auto start = util::parse_timestamp(status.started.empty() ? status.created : status.started);
    if (!start) {
        return std::nullopt;
    }
    auto end = util::parse_timestamp(status.finished);
    if (!end && status.phase == JobPhase::Suspended) {
        end = util::parse_timestamp(status.suspended_since);  // nothing runs while suspended
    }
    return std::difftime(end ? *end : now, *start);
}

}  // namespace kftrain::job
