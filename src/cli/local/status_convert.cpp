#include "cli/local/status_convert.h"

#include <fmt/format.h>

#include "cli/view/progress.h"
#include "manifest/quantity.h"

namespace kftrain::cli::local {
namespace {

job::ReplicaStatus replica_status(const ReplicaState& r, bool lost) {
    job::ReplicaStatus out;
    out.name = r.name;
    out.type = r.type;
    out.index = r.index;
    out.state = r.state;
    out.reason = r.reason;
    out.restarts = r.restarts;
    out.exit_code = r.exit_code;
    out.pid = r.pid;
    if (lost && (r.state == "Running" || r.state == "Restarting" || r.state == "Pending")) {
        out.state = "Unknown";
        out.reason = "SupervisorLost";
    }
    return out;
}

void count(job::JobStatus& status, const job::ReplicaStatus& replica) {
    job::ReplicaCounts& counts = status.counts[replica.type];
    if (replica.state == "Running" || replica.state == "Restarting") {
        counts.active += 1;
    } else if (replica.state == "Succeeded") {
        counts.succeeded += 1;
    } else if (replica.state == "Failed" || replica.state == "Terminated") {
        counts.failed += 1;
    }
}

// Every replica asks for the job file's resources; none recorded: unknown.
std::vector<job::ReplicaRequest> requests(const JobState& state) {
    std::vector<job::ReplicaRequest> out;
    if (!state.has_resources) {
        return out;
    }
    for (const auto& replica : state.replicas) {
        if (out.empty() || out.back().type != replica.type) {
            job::ReplicaRequest request;
            request.type = replica.type;
            request.cpu_cores = manifest::parse_quantity(state.cpu).value_or(0.0);
            request.memory_bytes = manifest::parse_quantity(state.memory).value_or(0.0);
            request.gpus = state.gpus;
            out.push_back(request);
        }
        out.back().replicas += 1;
    }
    return out;
}

}  // namespace

job::JobStatus status_from_state(const JobState& state, bool supervisor_alive) {
    job::JobStatus status;
    status.name = state.name;
    status.namespace_ = state.namespace_;
    status.backend = "local";
    status.kind = state.kind;
    status.phase = job::parse_phase(state.phase);
    status.reason = state.reason;
    status.message = state.message;
    status.created = state.created;
    status.started = state.started;
    status.finished = state.finished;
    status.replicas_wanted = static_cast<int>(state.replicas.size());
    status.requests = requests(state);
    status.node_selector = state.node_selector;
    bool lost = !job::is_finished(status.phase) && !supervisor_alive && state.supervisor_pid != 0;
    if (lost) {
        status.phase = job::JobPhase::Failed;
        status.reason = "SupervisorLost";
        status.message =
            fmt::format("the supervisor (pid {}) ended before the job did", state.supervisor_pid);
        status.diagnosis.push_back(
            "the local supervisor is gone (killed, or the machine restarted); submit the job "
            "again with --replace");
    }
    for (const auto& replica : state.replicas) {
        status.replicas.push_back(replica_status(replica, lost));
        count(status, status.replicas.back());
    }
    if (!state.last_progress.empty()) {
        status.progress = view::parse_progress_line(state.last_progress);
    }
    return status;
}

}  // namespace kftrain::cli::local
