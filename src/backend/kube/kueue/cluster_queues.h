#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/kube/queries.h"
#include "job/queue_status.h"

namespace kftrain::backend::kube {

// The resource name of Kueue's ClusterQueues (cluster-scoped).
inline constexpr const char* k_cluster_queue_resource = "clusterqueues.kueue.x-k8s.io";

// Return a ClusterQueue's quota and usage, flavor by flavor, resource by resource, in the
// order of its spec (spec.resourceGroups[].flavors[].resources[]: nominalQuota, borrowingLimit;
// status.flavorsReservation, else flavorsUsage: total). Bounded: the first 64 of each list.
std::vector<job::QueueQuota> cluster_queue_quota(const nlohmann::json& cluster_queue);

// Fill each LocalQueue's quota from its ClusterQueue, with one `get clusterqueues` for all of
// them. When they cannot be read (forbidden to a namespace's user, or any other failure) the
// queues keep no quota and one warning says why.
void add_cluster_queue_quota(KubeQueries& queries, std::vector<job::LocalQueueInfo>& queues,
                             std::vector<std::string>& warnings);

}  // namespace kftrain::backend::kube
