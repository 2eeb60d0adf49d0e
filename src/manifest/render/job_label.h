#pragma once

namespace kftrain::manifest {

// Label on jobs and pods that later verbs (and a PodMonitor) select by.
inline constexpr const char* k_job_label = "kftrain.io/job-name";

}  // namespace kftrain::manifest
