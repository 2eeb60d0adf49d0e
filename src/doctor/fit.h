#pragma once

// Whether a job's replicas can ever be scheduled: each replica's requests against what the
// nodes can allocate, and GPUs that exist. Pure: the nodes come from the backend.

#include <map>
#include <string>
#include <vector>

#include "doctor/report.h"
#include "manifest/job_spec.h"

namespace kftrain::doctor {

// A taint as a node carries it.
struct Taint {
    std::string key;
    std::string value;
    std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

// What a node can hold: its allocatable resources, and whether pods may go there.
struct Node {
    std::string name;
    double cpu = 0;           // cores
    double memory = 0;        // bytes
    long long gpus = 0;       // nvidia.com/gpu
    std::string gpu_product;  // the label nvidia.com/gpu.product, "" when none
    bool schedulable = true;  // not cordoned and Ready
    std::vector<Taint> taints;
    std::map<std::string, std::string> labels;
    // What of its allocatable kubectl printed that is no quantity, each as the warning says it
    // ("allocatable cpu is out of range: ... (got 1e99999)"); counted as 0 above.
    std::vector<std::string> unreadable;
};

// What one replica of the job asks for (requests; a limit alone is its request, as the API
// server defaults it).
struct Request {
    double cpu = 0;
    double memory = 0;
    long long gpus = 0;
};

// Return what each replica of spec requests; an error names a quantity that is not one.
Request replica_request(const manifest::JobSpec& spec);

// Return what a node can allocate: "2 CPUs, 7.6 GiB memory, 0 GPUs".
std::string node_capacity(const Node& node);

// Return the nodes summed up: "1 node: 2 CPUs, 23.4 GiB memory, no GPUs" ("2 of 3 nodes
// schedulable: ..."), with GPU products where labelled.
std::string nodes_summary(const std::vector<Node>& nodes);

// Return whether spec's pods may be scheduled on node: schedulable, labelled as the job's
// nodeSelector asks, and every NoSchedule or NoExecute taint tolerated.
bool accepts(const Node& node, const manifest::JobSpec& spec);

// Check that a replica of spec fits on at least one node it may go to: "fits on kind-worker
// (2 of its 4 CPUs, ...)", else failed: "fits on no node: largest allocatable is 2 CPUs,
// 7.6 GiB memory, 0 GPUs (node-a)"; GPUs asked for that no node has fail too.
Check fit_check(const manifest::JobSpec& spec, const std::vector<Node>& nodes);

}  // namespace kftrain::doctor
