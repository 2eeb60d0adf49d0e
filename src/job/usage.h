#pragma once

#include <optional>
#include <string>
#include <vector>

#include "usage/node_allocation.h"

namespace kftrain::job {

// What one replica uses now against what it asks (`kftrain top JOB`). Figures in base units
// (cores, bytes); nullopt: unknown (the warnings say why) or, for a limit, none.
struct ReplicaUsage {
    std::string name;   // master-0, worker-2, node-0
    std::string pod;    // its pod (cluster) or ""
    std::string node;   // its node (cluster) or ""
    long long pid = 0;  // its process (this machine) or 0
    std::string state;  // Running, Pending, ...
    int restarts = 0;
    std::optional<double> cpu_cores;     // used
    std::optional<double> memory_bytes;  // working set (cluster), resident memory (here)
    std::optional<double> cpu_request;
    std::optional<double> cpu_limit;
    std::optional<double> memory_request;
    std::optional<double> memory_limit;
    double gpus = 0;  // nvidia.com/gpu requested
};

// What a job's replicas use now.
struct JobUsage {
    std::string name;
    std::string namespace_;
    std::string kind;
    std::string source;  // where the figures come from: "kubelet summary", "metrics.k8s.io",
                         // "/proc"
    std::vector<ReplicaUsage> replicas;
    // What could not be read and why, one line each ("worker-1: not on a node yet (Pending)").
    std::vector<std::string> warnings;
};

// The nodes' allocatable against what their pods ask (`kftrain top nodes`).
struct NodeUsageList {
    std::vector<usage::NodeAllocation> nodes;
    std::vector<std::string> warnings;  // what could not be read and why
};

}  // namespace kftrain::job
