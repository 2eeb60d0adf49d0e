#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "job/status.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// The label selectors that find a job's pods, newest operator naming first:
// training.kubeflow.org/job-name (v1.6+), then job-name and pytorch-job-name
// (before v1.6).
std::vector<std::string> pod_selectors(const std::string& job);

// Read one pod into a replica: name (master-0) from the replica labels of any
// operator version or the pod name, phase, the main container's waiting or
// terminated reason, restarts, exit code, node.
job::ReplicaStatus replica_from_pod(const nlohmann::json& pod, const std::string& job);

// Read `kubectl get pods -o json` into replicas, Master first, then by type and index.
util::Result<std::vector<job::ReplicaStatus>> parse_pods(const std::string& json_text,
                                                         const std::string& job);

// Return whether a replica's main container has started (its logs can be read).
bool has_started(const job::ReplicaStatus& replica);

}  // namespace kftrain::backend::kube
