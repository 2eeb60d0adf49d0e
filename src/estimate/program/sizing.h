#pragma once

// The resources a measured program should ask for, and what a job's own resources will meet
// (docs/estimate.md, "Memory and CPU"). Pure: from a profile's sizes and a job's figures.

#include <optional>
#include <string>
#include <vector>

#include "estimate/program/profile.h"

namespace kftrain::estimate {

// Memory is asked for at the peak measured plus this share, rounded up to a whole MiB.
inline constexpr double k_memory_headroom = 0.20;
// CPU is asked for at the most cores used, rounded up to this step (and never below it).
inline constexpr double k_cpu_step = 0.1;

// What to ask for, from every measured size.
struct Sizing {
    double peak_memory_bytes = 0;     // the highest replica's, at any size
    int peak_replicas = 0;            // the size it was measured at
    std::string peak_replica;         // which replica
    double memory_bytes = 0;          // request and limit: peak plus k_memory_headroom
    std::optional<double> cpu_cores;  // request: the most cores a replica used (mean of its
                                      // readings), rounded up to k_cpu_step; none unread
    std::optional<double> peak_device_memory_bytes;  // the most GPU memory a replica held
    // Why the peak may be short of what a longer or larger run needs: memory still rising at
    // the end of a size (a leak?), or a replica's peak growing with the replica count.
    std::vector<std::string> warnings;
};

// Return what to ask for; nullopt when no size read any replica's memory.
std::optional<Sizing> recommend_sizing(const std::vector<SizeMeasurement>& sizes);

// Say a sizing in one line: "memory 375Mi (peak 312Mi at 2 replicas, +20%), cpu 1200m".
std::string sizing_text(const Sizing& sizing);

// What a job's resources meet, against a sizing.
struct SizingFinding {
    bool oom = false;     // the memory limit is under the measured peak
    std::string message;  // "will be OOMKilled: peak 312Mi measured at 2 replicas > limit
                          // 128Mi; ask for 375Mi"
};

// A request is wasted quota when it is over this many times what was used, and by more than
// k_waste_memory_bytes (memory) or k_waste_cores (CPU).
inline constexpr double k_waste_ratio = 4;
inline constexpr double k_waste_memory_bytes = 1024.0 * 1024 * 1024;
inline constexpr double k_waste_cores = 1;

// Return what a job's memory limit and requests meet: a limit under the peak (oom), and
// requests far above what was used (wasted quota). Figures in bytes and cores; nullopt: not set.
std::vector<SizingFinding> check_job_resources(const Sizing& sizing,
                                               std::optional<double> memory_limit,
                                               std::optional<double> memory_request,
                                               std::optional<double> cpu_request);

}  // namespace kftrain::estimate
