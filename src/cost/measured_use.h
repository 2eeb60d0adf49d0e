#pragma once

// What a measured size's replicas use, read while `estimate --measure` runs it (docs/estimate.md,
// "Memory and CPU"): through the backend's usage (kftrain top's reading: this machine's /proc,
// a cluster's metrics API or kubelet summary), at most every interval.

#include <chrono>
#include <string>
#include <vector>

#include "estimate/program/resource_use.h"
#include "estimate/program/sizing.h"
#include "job/backend.h"
#include "job/usage.h"
#include "manifest/job_spec.h"

namespace kftrain::cost {

// How often a local size's replicas are read, and a cluster's (whose kubelet refreshes its
// figures every few seconds, each reading costing a call a node).
inline constexpr std::chrono::milliseconds k_local_use_interval{1000};
inline constexpr std::chrono::milliseconds k_cluster_use_interval{5000};

class UseSampler {
  public:
    explicit UseSampler(std::chrono::milliseconds interval) : m_interval(interval) {}

    // Read the job's replicas through backend.usage when interval has passed since the last
    // reading; a reading that fails is skipped (the replicas are unknown then, not 0).
    void read_when_due(job::Backend& backend, const std::string& job);
    // Add one reading.
    void add(const job::JobUsage& usage);
    // Return each replica's use so far.
    std::vector<estimate::ReplicaUse> result() const { return m_tracker.result(); }

  private:
    std::chrono::milliseconds m_interval;
    std::chrono::steady_clock::time_point m_next{};
    estimate::UseTracker m_tracker;
};

// Return the job with its resources set to a sizing (estimate --print-job-file): memory
// (request and limit) at the recommendation; a CPU request at the cores used, under the job's
// own CPU limit where that is higher (a limit at the mean would throttle its busy moments).
manifest::JobSpec with_sizing(manifest::JobSpec spec, const estimate::Sizing& sizing);

}  // namespace kftrain::cost
