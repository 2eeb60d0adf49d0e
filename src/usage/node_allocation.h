#pragma once

#include <optional>
#include <string>
#include <vector>

#include "usage/pod_resources.h"
#include "util/result.h"

namespace kftrain::usage {

// The node label NVIDIA's GPU feature discovery sets to the GPU's product name.
inline constexpr const char* k_gpu_product_label = "nvidia.com/gpu.product";

// One node: what it can give pods against what its pods ask.
struct NodeAllocation {
    std::string name;
    std::string gpu_product;  // its nvidia.com/gpu.product label; "" when none
    // What the scheduler may hand out: cpu, memory and the extended resources
    // (domain-qualified names such as nvidia.com/gpu).
    Amounts allocatable;
    // The requests of its pods that hold resources (pod_holds_resources), summed as
    // `kubectl describe node` does; nullopt when the pods could not be read.
    std::optional<Amounts> allocated;
    int pods = 0;  // the pods counted in allocated
};

// Return whether top nodes shows a resource: cpu, memory and extended resources (a name with a
// domain, hugepages and kubernetes.io's own left out).
bool shown_resource(const std::string& name);

// Read `kubectl get nodes -o json` into nodes, by name, with what they allocate (allocated
// unknown); an error when the text is no list.
util::Result<std::vector<NodeAllocation>> read_nodes(const std::string& json_text);

// Add up the requests of the pods (`kubectl get pods -A -o json`) onto the nodes they run on;
// pods that hold nothing (pod_holds_resources) are left out. An error when the text is no list.
util::Status add_pod_requests(std::vector<NodeAllocation>& nodes, const std::string& json_text);

}  // namespace kftrain::usage
