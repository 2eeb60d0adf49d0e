#pragma once

#include <optional>
#include <string>

namespace kftrain::trainer {

// Read the container's CPU limit in cores from cgroup v2 (cpu.max) or v1
// (cpu.cfs_quota_us / cpu.cfs_period_us) under root; nullopt when unlimited or unknown.
std::optional<double> read_cpu_quota(const std::string& root = "/sys/fs/cgroup");

// Return the intra-op thread count for one of local_procs processes: the CPU quota (or the
// online core count when unlimited) divided by local_procs, at least 1.
int auto_threads(std::optional<double> quota, int online_cpus, int local_procs);

}  // namespace kftrain::trainer
