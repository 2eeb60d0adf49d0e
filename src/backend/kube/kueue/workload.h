#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "job/queue_entry.h"
#include "job/queue_status.h"

namespace kftrain::backend::kube {

// Kueue's objects read as kftrain shows them: pure functions of kubectl's JSON (Kueue
// v0.19, kueue.x-k8s.io/v1beta2; the visibility API's PendingWorkloadsSummary).

// The resource names kubectl is given, with their group so no other CRD's short name wins.
inline constexpr const char* k_workload_resource = "workloads.kueue.x-k8s.io";
inline constexpr const char* k_local_queue_resource = "localqueues.kueue.x-k8s.io";

// Return the path of a LocalQueue's pending workloads in the visibility API of this version
// ("v1beta2", "v1beta1"), for `kubectl get --raw`.
std::string pending_workloads_path(const std::string& version, const std::string& ns,
                                   const std::string& queue);

// Return the Workload in a List that the job owns (ownerReferences kind and name, and uid
// when given); of several, the newest unfinished one. nullptr when none is the job's.
const nlohmann::json* find_workload(const nlohmann::json& list, const std::string& kind,
                                    const std::string& name, const std::string& uid);

// Return where a Workload stands: its conditions (Finished, Admitted, QuotaReserved,
// Evicted, Requeued), its admission's ClusterQueue, requeue count and priority.
job::QueueStatus interpret_workload(const nlohmann::json& workload);

// Set the positions (1-based) of the Workload named workload from a LocalQueue's
// PendingWorkloadsSummary, and how many are pending there; nothing when it is not listed.
void apply_positions(job::QueueStatus& status, const nlohmann::json& summary);

// Return the jobs of LocalQueue queue from a List of Workloads, in queue order: the pending
// by their position in summary (a PendingWorkloadsSummary; null: by creation), then the
// admitted; finished ones are left out.
std::vector<job::QueueEntry> queue_entries(const nlohmann::json& workloads,
                                           const nlohmann::json& summary, const std::string& queue);

// Return a LocalQueue object as listed.
job::LocalQueueInfo local_queue_from(const nlohmann::json& queue);

// Return the LocalQueues of a List, in its order.
std::vector<job::LocalQueueInfo> local_queues_from(const nlohmann::json& list);

}  // namespace kftrain::backend::kube
