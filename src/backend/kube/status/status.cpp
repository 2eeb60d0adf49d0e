#include "backend/kube/status/status.h"

#include <fmt/format.h>

#include "backend/kube/json_fields.h"
#include "job/exit_codes.h"
#include "manifest/job_kind.h"
#include "util/json_text.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

// The last condition whose status is "True" (the last one if none is).
const json* current_condition(const json& conditions) {
    if (!conditions.is_array() || conditions.empty()) {
        return nullptr;
    }
    for (auto it = conditions.rbegin(); it != conditions.rend(); ++it) {
        if (string_at(*it, "status") == "True") {
            return &*it;
        }
    }
    return &conditions.back();
}

void read_counts(const json& replica_statuses, job::JobStatus& status) {
    if (!replica_statuses.is_object()) {
        return;
    }
    for (const auto& [type, counts] : replica_statuses.items()) {
        status.counts[type] = {int_at(counts, "active"), int_at(counts, "succeeded"),
                               int_at(counts, "failed")};
    }
}

// Read what one replica of each type requests, and the pods' node selector.
void read_requests(const json& spec, manifest::JobKind kind, job::JobStatus& status) {
    const manifest::OperatorKind& v1 = manifest::operator_kind(kind);
    const json& replica_specs = member(spec, v1.replica_specs);
    if (!replica_specs.is_object()) {
        return;
    }
    for (const auto& [type, replica_spec] : replica_specs.items()) {
        const json& pod_spec = member(member(replica_spec, "template"), "spec");
        const json& container = training_container(member(pod_spec, "containers"), v1.container);
        const json& count = member(replica_spec, "replicas");
        status.requests.push_back(replica_request(type,
                                                  count.is_number_integer() ? count.get<int>() : 1,
                                                  member(container, "resources")));
        if (status.node_selector.empty()) {
            copy_strings(member(pod_spec, "nodeSelector"), status.node_selector);
        }
    }
}

}  // namespace

job::JobStatus job_status_from(const json& job) {
    job::JobStatus status;
    status.backend = manifest::k_backend_kubernetes;
    const auto kind = manifest::parse_kind(string_at(job, "kind"));
    status.kind = manifest::kind_name(kind.value_or(manifest::JobKind::PyTorchJob));
    read_job_metadata(member(job, "metadata"), status);
    const json& job_status = member(job, "status");
    status.started = string_at(job_status, "startTime");
    status.finished = string_at(job_status, "completionTime");
    if (const json* condition = current_condition(member(job_status, "conditions"))) {
        status.phase = job::parse_phase(string_at(*condition, "type"));
        status.reason = string_at(*condition, "reason");
        status.message = string_at(*condition, "message");
        if (status.phase == job::JobPhase::Suspended) {
            status.suspended_since = string_at(*condition, "lastTransitionTime");
        }
        // The operator leaves completionTime unset when a job fails through an ExitCode
        // replica (common/job.go sets it only on the other paths): it ended when it turned
        // Failed.
        if (status.finished.empty() && job::is_finished(status.phase)) {
            status.finished = string_at(*condition, "lastTransitionTime");
        }
    }
    read_counts(member(job_status, "replicaStatuses"), status);
    read_requests(member(job, "spec"), kind.value_or(manifest::JobKind::PyTorchJob), status);
    for (const auto& request : status.requests) {
        status.replicas_wanted += request.replicas;
    }
    return status;
}

util::Result<job::JobStatus> parse_job_status(const std::string& json_text) {
    auto parsed = parse_json_object(json_text);
    if (!parsed) {
        return parsed.error_value();
    }
    const auto kind = manifest::parse_kind(string_at(*parsed, "kind"));
    if (!kind || !manifest::is_operator_kind(*kind)) {
        return util::error(
            fmt::format("kubectl returned a {} where a Training Operator job was expected",
                        string_at(*parsed, "kind").empty() ? std::string("object without a kind")
                                                           : string_at(*parsed, "kind")),
            k_exit_cluster);
    }
    return job_status_from(*parsed);
}

std::vector<std::string> status_selectors(const std::string& json_text) {
    return status_selectors(util::parse_untrusted_json(json_text));
}

std::vector<std::string> status_selectors(const json& job) {
    std::vector<std::string> selectors;
    const json& replica_statuses = member(member(job, "status"), "replicaStatuses");
    if (!replica_statuses.is_object()) {
        return selectors;
    }
    for (const auto& [type, counts] : replica_statuses.items()) {
        std::string selector = string_at(counts, "selector");
        const json& match_labels = member(member(counts, "labelSelector"), "matchLabels");
        if (selector.empty() && match_labels.is_object()) {
            std::vector<std::string> terms;
            for (const auto& [key, value] : match_labels.items()) {
                terms.push_back(key + "=" + (value.is_string() ? value.get<std::string>() : ""));
            }
            selector = fmt::format("{}", fmt::join(terms, ","));
        }
        if (!selector.empty()) {
            selectors.push_back(selector);
        }
    }
    return selectors;
}

}  // namespace kftrain::backend::kube
