#pragma once

namespace kftrain::manifest {

// Label on jobs and pods that later verbs (and a PodMonitor) select by.
inline constexpr const char* k_job_label = "kftrain.io/job-name";

// The label and annotation submit stamps on a cluster job (render/stamp.h), read back into its
// record in history: who submitted it (the kubeconfig user) and the --max-cost estimate.
inline constexpr const char* k_submitted_by_label = "kftrain.io/submitted-by";
inline constexpr const char* k_estimated_cost_annotation = "kftrain.io/estimated-cost";

}  // namespace kftrain::manifest
