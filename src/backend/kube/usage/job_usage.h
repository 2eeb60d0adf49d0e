#pragma once

#include <string>

#include "backend/kube/job_lookup.h"
#include "backend/kube/queries.h"
#include "job/usage.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// The most kubelet summaries read at once.
inline constexpr size_t k_summary_parallelism = 16;

// Return the metrics API's path for the pods of a namespace that a label selector picks
// ("/apis/metrics.k8s.io/v1beta1/namespaces/NS/pods?labelSelector=ENCODED").
std::string pod_metrics_path(const std::string& ns, const std::string& selector);

// Return a node's kubelet summary path, as the API server proxies it.
std::string kubelet_summary_path(const std::string& node);

// Read what a found job's replicas use: one pod list (requests and limits from the pods'
// own spec), then one call to the metrics API where the cluster serves it, else the kubelet
// summary of each node they run on, side by side. What cannot be read is unknown, with a
// warning naming it and why. Errors carry exit code 4 (or 3 when the pods' list says so).
util::Result<job::JobUsage> read_job_usage(KubeQueries& queries, const FoundJob& found);

}  // namespace kftrain::backend::kube
