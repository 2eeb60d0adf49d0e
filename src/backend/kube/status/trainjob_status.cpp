#include "backend/kube/status/trainjob_status.h"

#include "backend/kube/json_fields.h"
#include "progress/trainer_status.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

constexpr const char* k_node_step = "node";  // the replicated job of the training nodes
constexpr const char* k_node_type = "Node";  // its replicas' type

// The condition of this type whose status is "True", if any.
const json* true_condition(const json& conditions, const char* type) {
    if (!conditions.is_array()) {
        return nullptr;
    }
    for (const auto& condition : conditions) {
        if (string_at(condition, "type") == type && string_at(condition, "status") == "True") {
            return &condition;
        }
    }
    return nullptr;
}

// Whether jobsStatus shows a step under way: its pods all ready, or a step done.
bool steps_under_way(const json& jobs_status) {
    if (!jobs_status.is_array()) {
        return false;
    }
    for (const auto& jobs : jobs_status) {
        if (int_at(jobs, "ready") > 0 || int_at(jobs, "succeeded") > 0) {
            return true;
        }
    }
    return false;
}

void read_phase(const json& trainjob, job::JobStatus& status) {
    const json& conditions = member(member(trainjob, "status"), "conditions");
    const std::pair<const char*, job::JobPhase> decisive[] = {
        {"Failed", job::JobPhase::Failed},
        {"Complete", job::JobPhase::Succeeded},
        {"Suspended", job::JobPhase::Suspended},
    };
    for (const auto& [type, phase] : decisive) {
        if (const json* condition = true_condition(conditions, type)) {
            status.phase = phase;
            status.reason = string_at(*condition, "reason");
            status.message = string_at(*condition, "message");
            if (job::is_finished(phase)) {
                status.finished = string_at(*condition, "lastTransitionTime");
            }
            if (phase == job::JobPhase::Suspended) {
                status.suspended_since = string_at(*condition, "lastTransitionTime");
            }
            return;
        }
    }
    const json& suspend = member(member(trainjob, "spec"), "suspend");
    if (suspend.is_boolean() && suspend.get<bool>()) {
        status.phase = job::JobPhase::Suspended;  // created suspended (Kueue), not yet reported
        return;
    }
    bool running = steps_under_way(member(member(trainjob, "status"), "jobsStatus"));
    status.phase = running ? job::JobPhase::Running : job::JobPhase::Created;
}

// A resumed job started again when it was resumed (its active deadline restarts then too).
std::string resumed_at(const json& conditions) {
    if (!conditions.is_array()) {
        return "";
    }
    for (const auto& condition : conditions) {
        if (string_at(condition, "type") == "Suspended" &&
            string_at(condition, "reason") == "Resumed") {
            return string_at(condition, "lastTransitionTime");
        }
    }
    return "";
}

// Node counts from jobsStatus: its numbers are child Jobs, each of numNodes/jobs pods.
void read_node_counts(const json& jobs_status, int num_nodes, job::JobStatus& status) {
    if (!jobs_status.is_array()) {
        return;
    }
    for (const auto& jobs : jobs_status) {
        if (string_at(jobs, "name") != k_node_step) {
            continue;
        }
        int active = int_at(jobs, "active");
        int succeeded = int_at(jobs, "succeeded");
        int failed = int_at(jobs, "failed");
        int total = active + succeeded + failed + int_at(jobs, "suspended");
        int per_job = num_nodes > 0 && total > 0 ? std::max(num_nodes / total, 1) : 1;
        status.counts[k_node_type] = {active * per_job, succeeded * per_job, failed * per_job};
    }
}

// The node selector a runtime patch gives the node step's pods (a GPU type may show there).
void read_node_selector(const json& runtime_patches, job::JobStatus& status) {
    if (!runtime_patches.is_array()) {
        return;
    }
    for (const auto& patch : runtime_patches) {
        const json& jobs =
            member(member(member(member(patch, "trainingRuntimeSpec"), "template"), "spec"),
                   "replicatedJobs");
        if (!jobs.is_array()) {
            continue;
        }
        for (const auto& replicated : jobs) {
            if (string_at(replicated, "name") == k_node_step) {
                const json& pod =
                    member(member(member(replicated, "template"), "spec"), "template");
                copy_strings(member(member(pod, "spec"), "nodeSelector"), status.node_selector);
            }
        }
    }
}

void read_spec(const json& spec, job::JobStatus& status) {
    const json& trainer = member(spec, "trainer");
    status.replicas_wanted = int_at(trainer, "numNodes");
    const json& resources = member(trainer, "resourcesPerNode");
    if (resources.is_object()) {
        status.requests.push_back(replica_request(k_node_type, status.replicas_wanted, resources));
    }
    read_node_selector(member(spec, "runtimePatches"), status);
}

}  // namespace

std::string trainjob_pod_selector(const std::string& name) {
    return "jobset.sigs.k8s.io/jobset-name=" + name;
}

job::JobStatus trainjob_status_from(const json& trainjob) {
    job::JobStatus status;
    status.backend = "kubernetes";
    status.kind = "TrainJob";
    read_job_metadata(member(trainjob, "metadata"), status);
    read_phase(trainjob, status);
    const json& job_status = member(trainjob, "status");
    status.started = resumed_at(member(job_status, "conditions"));
    read_spec(member(trainjob, "spec"), status);
    read_node_counts(member(job_status, "jobsStatus"), status.replicas_wanted, status);
    status.progress = progress::trainer_status_progress(member(job_status, "trainerStatus"));
    return status;
}

void settle_trainjob_status(job::JobStatus& status) {
    if (status.replicas.empty()) {
        return;
    }
    job::ReplicaCounts nodes;
    int node_pods = 0;
    bool under_way = false;
    for (const auto& replica : status.replicas) {
        under_way = under_way || replica.state == "Running" || replica.state == "Restarting" ||
                    replica.state == "Succeeded";
        if (replica.type != k_node_type) {
            continue;
        }
        ++node_pods;
        if (replica.state == "Succeeded") {
            ++nodes.succeeded;
        } else if (replica.state == "Failed") {
            ++nodes.failed;
        } else if (replica.state != "Terminating") {
            ++nodes.active;
        }
    }
    if (status.phase == job::JobPhase::Created && under_way) {
        status.phase = job::JobPhase::Running;
    }
    if (node_pods > 0) {
        status.counts[k_node_type] = nodes;
    }
    if (status.replicas_wanted == 0 && node_pods > 0) {
        status.replicas_wanted = node_pods;
        for (auto& request : status.requests) {
            request.replicas = node_pods;
        }
    }
}

}  // namespace kftrain::backend::kube
