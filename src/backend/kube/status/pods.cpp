#include "backend/kube/status/pods.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <system_error>
#include <utility>

#include "backend/kube/json_fields.h"
#include "job/exit_codes.h"
#include "manifest/job_kind.h"
#include "manifest/k8s/quantity.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

// Return a replica's index from a label or name: its decimal digits within an int, else 0 (a
// pod anyone can label must not stop status with a number too big).
int index_number(const std::string& text) {
    int index = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, index);
    return ec == std::errc() && ptr == end && !text.empty() && text[0] != '-' ? index : 0;
}

// Return whether text is a replica index: decimal digits within an int.
bool is_index(const std::string& text) {
    int index = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, index);
    return ec == std::errc() && ptr == end && !text.empty() && text[0] != '-';
}

// Name a replica whose index text is not a number by its pod, so that it never merges with
// the replica of index 0, and say why.
void name_by_pod(job::ReplicaStatus& r, const std::string& index) {
    r.index = -1;
    r.name = r.pod;
    r.odd_identity =
        fmt::format("pod {}: its replica index {} is not a number; shown by its pod name", r.pod,
                    util::escape_line(util::excerpt(index, 40)));
}

// Name each replica whose type and index another pod has too by its pod (a pod being deleted
// quietly; else with why), so that no two replicas merge under one name.
void name_repeats_by_pod(std::vector<job::ReplicaStatus>& replicas) {
    std::map<std::string, size_t> first;
    for (size_t i = 0; i < replicas.size(); ++i) {
        auto [at, fresh] = first.emplace(replicas[i].name, i);
        if (fresh) {
            continue;
        }
        job::ReplicaStatus& seen = replicas[at->second];
        const bool going = replicas[i].state == "Terminating" || seen.state == "Terminating";
        job::ReplicaStatus& renamed = seen.state == "Terminating" ? seen : replicas[i];
        if (!going) {
            renamed.odd_identity = fmt::format(
                "pod {}: its replica index {} of {} repeats pod {}'s; shown by its pod name",
                replicas[i].pod, replicas[i].index, replicas[i].type, seen.pod);
        }
        if (&renamed == &seen) {
            at->second = i;
        }
        renamed.name = renamed.pod;
    }
}

// The first label present among these keys, and its key ("" when none is).
std::pair<std::string, std::string> keyed_label(const json& labels,
                                                std::initializer_list<const char*> keys) {
    for (const char* key : keys) {
        std::string value = string_at(labels, key);
        if (!value.empty()) {
            return {key, value};
        }
    }
    return {"", ""};
}

std::string label(const json& labels, std::initializer_list<const char*> keys) {
    return keyed_label(labels, keys).second;
}

// "Master" from "master", "PS" from "ps"; the type as the operator's replica specs spell it.
std::string type_name(const std::string& lowered) {
    if (lowered.empty()) {
        return "";
    }
    if (lowered == "ps") {
        return "PS";
    }
    std::string out = lowered;
    out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
    return out;
}

// The JobSet labels (and annotations) of a TrainJob's pods.
constexpr const char* k_replicated_job = "jobset.sigs.k8s.io/replicatedjob-name";
constexpr const char* k_completion_index = "batch.kubernetes.io/job-completion-index";

// Return a JobSet value from the pod's labels (and set label_key and label to it: a label
// selects the pod), else from its annotations.
std::string jobset_value(const json& metadata, const char* key, std::string& label_key,
                         std::string& label_value) {
    std::string value = label(member(metadata, "labels"), {key});
    if (value.empty()) {
        return label(member(metadata, "annotations"), {key});
    }
    label_key = key;
    label_value = value;
    return value;
}

// Read a JobSet pod's identity: node-<completion index> for the node step (never the random
// pod suffix), the step's name for an initializer (with -<index> past the first). Return false
// when the pod is not a JobSet's.
bool read_jobset_identity(const json& pod, job::ReplicaStatus& r) {
    const json& metadata = member(pod, "metadata");
    std::string step = jobset_value(metadata, k_replicated_job, r.labels.type_key, r.labels.type);
    if (step.empty()) {
        return false;
    }
    // Kubernetes 1.28 and later label the index too; before, only the annotation has it.
    std::string index =
        jobset_value(metadata, k_completion_index, r.labels.index_key, r.labels.index);
    r.index = index_number(index);
    // The runtimes name the container after its step; a custom one may not.
    std::string container =
        string_at(training_container(member(member(pod, "spec"), "containers"), step), "name");
    r.container = container.empty() ? step : container;
    if (step == "node") {
        r.type = "Node";
        r.name = "node-" + std::to_string(r.index);
    } else {
        r.type = step;
        r.name = r.index == 0 ? step : step + "-" + std::to_string(r.index);
    }
    if (!index.empty() && !is_index(index)) {
        name_by_pod(r, index);
    }
    return true;
}

// The container a Training Operator pod trains in: the one named for its kind (pytorch,
// xgboost, jax), which the operator requires; pytorch when none is.
std::string operator_container(const json& containers) {
    for (manifest::JobKind kind : manifest::k_kinds) {
        const char* name = manifest::operator_kind(kind).container;
        // training_container falls back to the first: only a container of that name counts.
        if (manifest::is_operator_kind(kind) &&
            string_at(training_container(containers, name), "name") == name) {
            return name;
        }
    }
    return "pytorch";
}

// Read type and index from labels, falling back to "<job>-<type>-<index>" in the pod name.
void read_identity(const json& pod, const std::string& job, job::ReplicaStatus& r) {
    if (read_jobset_identity(pod, r)) {
        return;
    }
    const json& labels = member(member(pod, "metadata"), "labels");
    auto [type_key, type_label] = keyed_label(
        labels, {"training.kubeflow.org/replica-type", "replica-type", "pytorch-replica-type"});
    auto [index_key, index] = keyed_label(
        labels, {"training.kubeflow.org/replica-index", "replica-index", "pytorch-replica-index"});
    r.labels = {type_key, type_label, index_key, index};
    std::string type = util::to_lower(type_label);
    std::string rest = r.pod.rfind(job + "-", 0) == 0 ? r.pod.substr(job.size() + 1) : r.pod;
    size_t dash = rest.rfind('-');
    if (type.empty() && dash != std::string::npos) {
        type = util::to_lower(rest.substr(0, dash));
    }
    if (index.empty() && dash != std::string::npos) {
        index = rest.substr(dash + 1);
    }
    r.type = type_name(type);
    r.index = index_number(index);
    r.name = type.empty() ? r.pod : type + "-" + std::to_string(r.index);
    if (!type.empty() && !index.empty() && !is_index(index)) {
        name_by_pod(r, index);
    }
    r.container = operator_container(member(member(pod, "spec"), "containers"));
}

// The status of the replica's container ("pytorch", "node" or the step's), else the first.
const json* main_container(const json& statuses, const std::string& name) {
    const json& status = training_container(statuses, name);
    return status.is_null() ? nullptr : &status;
}

// The named container's (else the first's) resources.limits.memory: null when none.
const json& memory_limit(const json& containers, const std::string& name) {
    const json& container = training_container(containers, name);
    return member(member(member(container, "resources"), "limits"), "memory");
}

void read_container(const json& container, job::ReplicaStatus& r) {
    r.restarts = std::max(0, int_at(container, "restartCount"));
    const json& state = member(container, "state");
    const json& waiting = member(state, "waiting");
    const json& terminated = member(state, "terminated");
    const json& last = member(member(container, "lastState"), "terminated");
    if (last.is_object()) {
        r.last_reason = string_at(last, "reason");
        r.finished = string_at(last, "finishedAt");
    }
    if (terminated.is_object()) {
        r.reason = string_at(terminated, "reason");
        r.message = string_at(terminated, "message");
        r.finished = string_at(terminated, "finishedAt");
        r.exit_code = util::json_number<int>(member(terminated, "exitCode"));
        return;
    }
    if (waiting.is_object()) {
        r.reason = string_at(waiting, "reason");
        r.message = string_at(waiting, "message");
    }
    // Waiting to restart, or running again: the exit code is its previous attempt's.
    if (last.is_object() && (waiting.is_object() || r.restarts > 0)) {
        r.exit_code = util::json_number<int>(member(last, "exitCode"));
    }
}

// A worker still in init-pytorch (waiting for the master's DNS name) or another init container.
void read_init_containers(const json& statuses, job::ReplicaStatus& r) {
    if (!statuses.is_array()) {
        return;
    }
    for (const auto& status : statuses) {
        const json& state = member(status, "state");
        if (member(state, "terminated").is_object() &&
            string_at(member(state, "terminated"), "reason") == "Completed") {
            continue;
        }
        std::string name = string_at(status, "name");
        const json& waiting = member(state, "waiting");
        r.reason = "Init:" + name;
        if (waiting.is_object() && !string_at(waiting, "reason").empty() &&
            string_at(waiting, "reason") != "PodInitializing") {
            r.reason = "Init:" + string_at(waiting, "reason");
            r.message = string_at(waiting, "message");
        }
        return;
    }
}

void read_unschedulable(const json& conditions, job::ReplicaStatus& r) {
    if (!conditions.is_array()) {
        return;
    }
    for (const auto& condition : conditions) {
        if (string_at(condition, "type") == "PodScheduled" &&
            string_at(condition, "status") == "False") {
            r.reason = string_at(condition, "reason");
            r.message = string_at(condition, "message");
        }
    }
}

// Master, then Workers; a TrainJob's initializer steps (which run first), then its nodes.
int type_rank(const std::string& type) {
    return type == "Master" ? 0 : type == "Worker" ? 1 : type == "Node" ? 3 : 2;
}

}  // namespace

std::vector<std::string> pod_selectors(const std::string& job) {
    return {"training.kubeflow.org/job-name=" + job, "job-name=" + job, "pytorch-job-name=" + job};
}

job::ReplicaStatus replica_from_pod(const json& pod, const std::string& job) {
    job::ReplicaStatus r;
    const json& metadata = member(pod, "metadata");
    const json& status = member(pod, "status");
    r.pod = string_at(metadata, "name");
    read_identity(pod, job, r);
    r.node = string_at(member(pod, "spec"), "nodeName");
    const json& limit = memory_limit(member(member(pod, "spec"), "containers"), r.container);
    r.memory_limited = !limit.is_null();
    if (limit.is_string()) {
        r.memory_limit_bytes = manifest::parse_quantity(limit.get<std::string>());
    }
    r.state = string_at(status, "phase");
    if (r.state.empty()) {
        r.state = "Unknown";
    }
    if (const json* container = main_container(member(status, "containerStatuses"), r.container)) {
        read_container(*container, r);
        // A running pod whose container is not running (waiting in CrashLoopBackOff, or just
        // ended and about to restart) is restarting, as kubectl's STATUS shows it and as a
        // local replica between attempts reads; its pod's phase alone would say Running.
        const json& state = member(*container, "state");
        if (r.state == "Running" && !member(state, "running").is_object() &&
            (member(state, "waiting").is_object() || member(state, "terminated").is_object())) {
            r.state = "Restarting";
        }
    }
    if (r.state == "Pending") {
        if (r.reason.empty() || r.reason == "PodInitializing") {
            read_init_containers(member(status, "initContainerStatuses"), r);
        }
        if (r.reason.empty()) {
            read_unschedulable(member(status, "conditions"), r);
        }
    }
    // The pod's own reason (Evicted, DeadlineExceeded, NodeLost) says more than its container's
    // (Error, exit code 137) about why it failed.
    if (r.state == "Failed" && (r.reason.empty() || !string_at(status, "reason").empty())) {
        r.reason = string_at(status, "reason");
        r.message = string_at(status, "message");
    }
    if (!string_at(metadata, "deletionTimestamp").empty()) {
        r.state = "Terminating";
    }
    return r;
}

util::Result<std::vector<job::ReplicaStatus>> parse_pods(const std::string& json_text,
                                                         const std::string& job) {
    json parsed = util::parse_untrusted_json(json_text);
    if (parsed.is_discarded() || !parsed.is_object() || !member(parsed, "items").is_array()) {
        return util::error("kubectl printed a pod list that is not JSON with items",
                           k_exit_cluster);
    }
    std::vector<job::ReplicaStatus> replicas;
    for (const auto& pod : parsed["items"]) {
        replicas.push_back(replica_from_pod(pod, job));
    }
    std::stable_sort(replicas.begin(), replicas.end(), [](const auto& a, const auto& b) {
        return std::make_tuple(type_rank(a.type), a.type, a.index) <
               std::make_tuple(type_rank(b.type), b.type, b.index);
    });
    name_repeats_by_pod(replicas);
    return replicas;
}

bool has_started(const job::ReplicaStatus& replica) {
    if (replica.state == "Running" || replica.state == "Restarting" ||
        replica.state == "Succeeded" || replica.state == "Failed") {
        return true;
    }
    return replica.state == "Terminating" || replica.restarts > 0;
}

}  // namespace kftrain::backend::kube
