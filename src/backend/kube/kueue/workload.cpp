#include "backend/kube/kueue/workload.h"

#include <fmt/format.h>

#include <algorithm>

#include "backend/kube/json_fields.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

// Return the condition of this type, or nullptr.
const json* condition_of(const json& workload, const char* type) {
    const json& conditions = member(member(workload, "status"), "conditions");
    if (!conditions.is_array()) {
        return nullptr;
    }
    for (const auto& condition : conditions) {
        if (string_at(condition, "type") == type) {
            return &condition;
        }
    }
    return nullptr;
}

bool is_true(const json* condition) {
    return condition != nullptr && string_at(*condition, "status") == "True";
}

// Return whether the Workload is owned by the job (kind and name, and uid when both know it).
bool owned_by(const json& workload, const std::string& kind, const std::string& name,
              const std::string& uid) {
    const json& owners = member(member(workload, "metadata"), "ownerReferences");
    if (!owners.is_array()) {
        return false;
    }
    for (const auto& owner : owners) {
        const std::string owner_uid = string_at(owner, "uid");
        if (string_at(owner, "kind") == kind && string_at(owner, "name") == name &&
            (uid.empty() || owner_uid.empty() || owner_uid == uid)) {
            return true;
        }
    }
    return false;
}

void take_condition(job::QueueStatus& status, const json& condition) {
    status.reason = string_at(condition, "reason");
    status.message = string_at(condition, "message");
    status.since = string_at(condition, "lastTransitionTime");
}

// Read the spec's queue, priority and activation, and the status's admission and requeues.
void read_fields(const json& workload, job::QueueStatus& status) {
    const json& metadata = member(workload, "metadata");
    status.workload = string_at(metadata, "name");
    status.queued_since = string_at(metadata, "creationTimestamp");
    const json& spec = member(workload, "spec");
    status.local_queue = string_at(spec, "queueName");
    status.priority_class = string_at(member(spec, "priorityClassRef"), "name");  // v1beta2
    if (status.priority_class.empty()) {
        status.priority_class = string_at(spec, "priorityClassName");  // v1beta1
    }
    if (member(spec, "priority").is_number_integer()) {
        status.priority = member(spec, "priority").get<long long>();
    }
    status.inactive = member(spec, "active").is_boolean() && !member(spec, "active").get<bool>();
    const json& workload_status = member(workload, "status");
    status.cluster_queue = string_at(member(workload_status, "admission"), "clusterQueue");
    const json& requeue = member(workload_status, "requeueState");
    status.requeues = int_at(requeue, "count");
    status.requeue_at = string_at(requeue, "requeueAt");
}

}  // namespace

std::string pending_workloads_path(const std::string& version, const std::string& ns,
                                   const std::string& queue) {
    return fmt::format(
        "/apis/visibility.kueue.x-k8s.io/{}/namespaces/{}/localqueues/{}/"
        "pendingworkloads",
        version, ns, queue);
}

const json* find_workload(const json& list, const std::string& kind, const std::string& name,
                          const std::string& uid) {
    const json& items = member(list, "items");
    if (!items.is_array()) {
        return nullptr;
    }
    const json* best = nullptr;
    bool best_finished = true;
    for (const auto& item : items) {
        if (!owned_by(item, kind, name, uid)) {
            continue;
        }
        const bool finished = is_true(condition_of(item, "Finished"));
        const std::string created = string_at(member(item, "metadata"), "creationTimestamp");
        const bool newer =
            best == nullptr || created > string_at(member(*best, "metadata"), "creationTimestamp");
        if (best == nullptr || (best_finished && !finished) ||
            (best_finished == finished && newer)) {
            best = &item;
            best_finished = finished;
        }
    }
    return best;
}

job::QueueStatus interpret_workload(const json& workload) {
    job::QueueStatus status;
    read_fields(workload, status);
    const json* finished = condition_of(workload, "Finished");
    const json* admitted = condition_of(workload, "Admitted");
    const json* reserved = condition_of(workload, "QuotaReserved");
    const json* evicted = condition_of(workload, "Evicted");
    const json* requeued = condition_of(workload, "Requeued");
    if (is_true(evicted)) {
        status.evicted_reason = string_at(*evicted, "reason");
        status.evicted_message = string_at(*evicted, "message");
    }
    if (is_true(finished)) {
        status.state = job::QueueState::Finished;
        take_condition(status, *finished);
    } else if (is_true(evicted) && is_true(reserved)) {
        status.state = job::QueueState::Evicted;  // its pods are being stopped
        take_condition(status, *evicted);
    } else if (is_true(admitted)) {
        status.state = job::QueueState::Admitted;
        take_condition(status, *admitted);
    } else if (is_true(reserved)) {
        status.state = job::QueueState::QuotaReserved;
        take_condition(status, *reserved);
    } else if (requeued != nullptr && !is_true(requeued)) {
        status.state = job::QueueState::Pending;  // not back in the queue yet
        take_condition(status, *requeued);
    } else if (reserved != nullptr) {
        status.state = job::QueueState::Pending;
        take_condition(status, *reserved);
    } else {
        status.state = job::QueueState::Pending;
        status.since = status.queued_since;
    }
    return status;
}

void apply_positions(job::QueueStatus& status, const json& summary) {
    const json& items = member(summary, "items");
    if (!items.is_array()) {
        return;
    }
    for (const auto& item : items) {
        if (string_at(member(item, "metadata"), "name") != status.workload) {
            continue;
        }
        status.position = int_at(item, "positionInLocalQueue") + 1;
        status.position_in_cluster = int_at(item, "positionInClusterQueue") + 1;
        status.pending_in_queue = static_cast<int>(items.size());
    }
}

std::vector<job::QueueEntry> queue_entries(const json& workloads, const json& summary,
                                           const std::string& queue) {
    std::vector<job::QueueEntry> entries;
    const json& items = member(workloads, "items");
    if (!items.is_array()) {
        return entries;
    }
    for (const auto& item : items) {
        job::QueueStatus status = interpret_workload(item);
        if (status.local_queue != queue || status.state == job::QueueState::Finished) {
            continue;
        }
        const json& owners = member(member(item, "metadata"), "ownerReferences");
        const json& owner = owners.is_array() && !owners.empty() ? owners[0] : json();
        apply_positions(status, summary);
        entries.push_back({string_at(owner, "name"), string_at(owner, "kind"), status.workload,
                           status.state, status.position, status.queued_since});
    }
    // Pending first, by position (unknown positions after known ones), then by age.
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        const bool a_pending = a.state == job::QueueState::Pending;
        const bool b_pending = b.state == job::QueueState::Pending;
        if (a_pending != b_pending) {
            return a_pending;
        }
        const int a_pos = a.position.value_or(1 << 30);
        const int b_pos = b.position.value_or(1 << 30);
        if (a_pos != b_pos) {
            return a_pos < b_pos;
        }
        return a.queued_since < b.queued_since;
    });
    return entries;
}

job::LocalQueueInfo local_queue_from(const json& queue) {
    job::LocalQueueInfo info;
    const json& metadata = member(queue, "metadata");
    info.name = string_at(metadata, "name");
    info.namespace_ = string_at(metadata, "namespace");
    info.cluster_queue = string_at(member(queue, "spec"), "clusterQueue");
    const json& status = member(queue, "status");
    info.pending = int_at(status, "pendingWorkloads");
    info.reserving = int_at(status, "reservingWorkloads");
    info.admitted = int_at(status, "admittedWorkloads");
    if (const json* active = condition_of(queue, "Active"); active != nullptr && !is_true(active)) {
        info.active = false;
        info.reason = string_at(*active, "reason");
        info.message = string_at(*active, "message");
    }
    return info;
}

std::vector<job::LocalQueueInfo> local_queues_from(const json& list) {
    std::vector<job::LocalQueueInfo> queues;
    const json& items = member(list, "items");
    if (items.is_array()) {
        for (const auto& item : items) {
            queues.push_back(local_queue_from(item));
        }
    }
    return queues;
}

}  // namespace kftrain::backend::kube
