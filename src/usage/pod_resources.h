#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kftrain::usage {

// Amounts of resources by name ("cpu", "memory", "nvidia.com/gpu"), in base units: cores,
// bytes, devices.
using Amounts = std::map<std::string, double>;

// The extended resource kftrain shows on its own: NVIDIA's GPUs.
inline constexpr const char* k_gpu_resource = "nvidia.com/gpu";

// The share of the memory limit at or above which a working set is at risk of the OOM killer.
inline constexpr double k_oom_risk_share = 0.9;

// What a pod asks of its node, as the scheduler and `kubectl describe node` count it.
struct PodResources {
    // Per resource: the larger of the sum of its containers' requests (sidecars, init
    // containers with restartPolicy Always, included) and its largest init container's, plus
    // the pod's overhead.
    Amounts requests;
    // Per resource, the same sum of limits; a resource is here only when every container
    // limits it (one without a limit leaves the pod unlimited).
    Amounts limits;
};

// Read a pod's requests and limits from its spec (what the API server stored); quantities that
// are no quantity are left out.
PodResources pod_resources(const nlohmann::json& pod);

// Return whether a pod holds its node's resources: it is on a node and neither Succeeded nor
// Failed.
bool pod_holds_resources(const nlohmann::json& pod);

// Return whether a memory working set is at risk of the OOM killer: at or above
// k_oom_risk_share of the limit; false when either is unknown or there is no limit.
bool oom_risk(std::optional<double> working_set, std::optional<double> limit);

// Return an amount by name; nullopt when absent.
std::optional<double> amount_of(const Amounts& amounts, const std::string& name);

}  // namespace kftrain::usage
