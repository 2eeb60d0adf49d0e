#include "backend/local/status_convert.h"

#include <fmt/format.h>

#include "manifest/k8s/quantity.h"
#include "progress/progress_line.h"
#include "progress/trainer_status.h"
#include "util/json_text.h"
#include "util/redact.h"

namespace kftrain::backend::local {
namespace {

bool active(const std::string& state) {
    return state == "Running" || state == "Restarting" || state == "Pending";
}

job::ReplicaStatus replica_status(const ReplicaState& r, bool lost, bool alive,
                                  const char* gone_reason) {
    job::ReplicaStatus out;
    out.name = r.name;
    out.type = r.type;
    out.index = r.index;
    out.state = r.state;
    out.reason = r.reason;
    out.restarts = r.restarts;
    out.exit_code = r.exit_code;
    out.pid = r.pid;
    out.finished = r.finished.empty() ? r.previous_finished : r.finished;
    if (lost && alive) {
        out.state = "Running";
        out.reason = "Unsupervised";
    } else if (lost && active(r.state)) {
        out.state = "Unknown";
        out.reason = gone_reason;
    }
    return out;
}

void count(job::JobStatus& status, const job::ReplicaStatus& replica) {
    job::ReplicaCounts& counts = status.counts[replica.type];
    if (replica.state == "Running" || replica.state == "Restarting") {
        counts.active += 1;
    } else if (replica.state == "Succeeded") {
        counts.succeeded += 1;
    } else if (replica.state == "Failed" ||
               (replica.state == "Terminated" && replica.reason != "Suspended" &&
                status.phase != job::JobPhase::Succeeded)) {
        // A replica the job's success stopped (a TFJob's parameter server, a Worker still
        // running when the Master ended) did not fail.
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

// The supervisor ended before saving the job's end: take the outcome it left in
// supervisor.json.
void apply_last_word(job::JobStatus& status, const LastWord& word) {
    status.phase = job::parse_phase(word.phase);
    status.reason = word.reason;
    status.message = word.message;
    status.finished = word.finished;
    status.diagnosis.push_back(fmt::format(
        "kftrain could not save the job's end in its state: {}; the replicas show their state "
        "as last saved",
        word.error));
}

void apply_lost(job::JobStatus& status, const JobState& state, int alive) {
    status.reason = "SupervisorLost";
    if (alive > 0) {
        status.message = fmt::format(
            "the supervisor (pid {}) is gone; {} of {} replicas still run, "
            "unsupervised",
            state.supervisor_pid, alive, state.replicas.size());
        status.diagnosis.push_back(fmt::format(
            "the local supervisor is gone (killed?): the replicas that still run are no longer "
            "restarted or logged, and one that prints ends at its next line (SIGPIPE: its "
            "output went to the supervisor); `kftrain delete {}` stops them",
            state.name));
        return;
    }
    status.phase = job::JobPhase::Failed;
    status.message =
        fmt::format("the supervisor (pid {}) ended before the job did", state.supervisor_pid);
    status.diagnosis.push_back(
        "the local supervisor is gone (killed, or the machine restarted); submit the job "
        "again with --replace");
}

job::JobStatus base_status(const JobState& state) {
    job::JobStatus status;
    status.name = state.name;
    status.namespace_ = state.namespace_;
    status.backend = manifest::k_backend_local;
    status.kind = state.kind;
    status.phase = job::parse_phase(state.phase);
    status.reason = state.reason;
    status.message = state.message;
    status.created = state.created;
    status.started = state.started;
    status.finished = state.finished;
    if (status.phase == job::JobPhase::Suspended) {
        status.suspended_since = state.suspended;
    }
    status.replicas_wanted = static_cast<int>(state.replicas.size());
    status.requests = requests(state);
    status.node_selector = state.node_selector;
    return status;
}

bool seen_alive(const Observed& seen, size_t i) {
    return i < seen.replica_alive.size() && seen.replica_alive[i];
}

}  // namespace

std::optional<job::Progress> posted_progress_of(const JobState& state) {
    if (state.trainer_status.empty()) {
        return std::nullopt;
    }
    return progress::trainer_status_progress(util::parse_untrusted_json(state.trainer_status));
}

job::JobStatus status_from_state(const JobState& state, const Observed& seen) {
    job::JobStatus status = base_status(state);
    // A suspended job rests with no supervisor until resume starts one.
    const bool lost = !job::is_finished(status.phase) && status.phase != job::JobPhase::Suspended &&
                      !seen.supervisor_alive && state.supervisor_pid != 0;
    const bool unsaved = lost && seen.last_word && !seen.last_word->phase.empty();
    int alive = 0;
    for (size_t i = 0; i < state.replicas.size(); ++i) {
        alive += seen_alive(seen, i) ? 1 : 0;
    }
    if (unsaved) {
        apply_last_word(status, *seen.last_word);
    } else if (lost) {
        apply_lost(status, state, alive);
    } else if (seen.supervisor_alive && seen.last_word && !seen.last_word->error.empty()) {
        status.diagnosis.push_back(
            fmt::format("kftrain cannot save the job's state: {}; status shows it as last saved",
                        seen.last_word->error));
    }
    if (!state.logs_error.empty()) {
        status.diagnosis.push_back(fmt::format(
            "the job's logs are incomplete: {}; what the replicas printed after that is lost "
            "(free space on that disk)",
            state.logs_error));
    }
    status.message = util::redact_credentials(status.message);
    for (size_t i = 0; i < state.replicas.size(); ++i) {
        status.replicas.push_back(replica_status(state.replicas[i], lost, seen_alive(seen, i),
                                                 unsaved ? "StateNotSaved" : "SupervisorLost"));
        // The job file's limit: not enforced here, but the one the cluster would kill it at.
        status.replicas.back().memory_limit_bytes = manifest::parse_quantity(
            state.memory_limit.empty() ? state.memory : state.memory_limit);
        count(status, status.replicas.back());
    }
    // Two ways in, merged, the newest report first: progress lines in the lead replica's
    // output, and trainerStatus posted to the job's status server by any replica.
    std::optional<job::Progress> printed;
    if (!state.last_progress.empty()) {
        printed = progress::parse_progress_line(state.last_progress);
    }
    status.progress = progress::merge_progress(printed, posted_progress_of(state));
    if (auto checkpoint = progress::parse_progress_line(state.last_checkpoint)) {
        status.checkpoint = progress::checkpoint_report(*checkpoint);
    }
    return status;
}

job::JobStatus status_from_state(const JobState& state, bool supervisor_alive) {
    Observed seen;
    seen.supervisor_alive = supervisor_alive;
    return status_from_state(state, seen);
}

}  // namespace kftrain::backend::local
