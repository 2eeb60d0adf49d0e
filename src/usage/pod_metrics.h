#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "util/result.h"

namespace kftrain::usage {

// What a pod uses now: CPU in cores and its memory working set in bytes; nullopt where the
// source does not say.
struct MeasuredUsage {
    std::optional<double> cpu_cores;
    std::optional<double> memory_bytes;
};

// A pod by namespace and name.
using PodKey = std::pair<std::string, std::string>;

// What a source measured of each pod it knows.
using PodUsageMap = std::map<PodKey, MeasuredUsage>;

// Read a kubelet's summary (`get --raw /api/v1/nodes/NODE/proxy/stats/summary`): each pod
// by its podRef, its containers' cpu.usageNanoCores and memory.workingSetBytes summed (the
// pod's own figures where it lists no container). A figure one of its containers lacks (a
// container just started) is unknown. An error when the text is no summary.
util::Result<PodUsageMap> read_kubelet_summary(const std::string& json_text);

// Read the metrics API's PodMetricsList (`get --raw
// /apis/metrics.k8s.io/v1beta1/namespaces/NS/pods`): each pod's containers' usage.cpu and
// usage.memory (quantities) summed. An error when the text is no such list.
util::Result<PodUsageMap> read_pod_metrics(const std::string& json_text);

}  // namespace kftrain::usage
