#pragma once

#include "backend/local/state/job_state.h"
#include "job/status.h"
#include "job/usage.h"

namespace kftrain::backend::local {

// The time between the two readings of /proc that a replica's CPU is measured over.
inline constexpr double k_cpu_interval_s = 0.5;

// Measure what a local job's replicas use: the CPU cores of each replica's process tree between
// two readings of /proc k_cpu_interval_s apart, and its resident memory (each process of the
// tree once); requests and limits as the job file gave them. A replica that does not run, or
// whose process is gone or another one now, is unknown, with a warning.
job::JobUsage measure_local_usage(const JobState& state, const job::JobStatus& status);

}  // namespace kftrain::backend::local
