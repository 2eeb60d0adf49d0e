#pragma once

// What a program's replicas used while `estimate --measure` ran it (docs/estimate.md, "Memory
// and CPU"): each replica's peak memory and the CPU it used, read every few seconds from the
// same source as `kftrain top` (this machine's /proc, a cluster's kubelet).

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kftrain::estimate {

// What one replica used while one size was measured.
struct ReplicaUse {
    std::string replica;                      // master-0, worker-1, node-0
    std::optional<double> peak_memory_bytes;  // the highest reading: resident memory of its
                                              // process tree here, the working set on a cluster
    std::optional<double> cpu_cores;          // the mean of its readings
    std::optional<double> peak_device_memory_bytes;  // GPU memory, where it was read
    bool memory_rising = false;  // still growing when the measurement ended (memory_rising)
    int readings = 0;            // how many readings gave memory
};

// The least number of memory readings that can tell growth from a plateau.
inline constexpr int k_min_rising_readings = 6;

// Return whether memory readings (in time order) still grew at the end: the highest of the
// last third is over the highest before it by more than 10% and 16 MiB (a program that loads
// its data and then holds it is not), given k_min_rising_readings at least.
bool memory_rising(const std::vector<double>& readings);

// Gathers one size's readings, replica by replica.
class UseTracker {
  public:
    // Add a reading of replica: its memory in bytes and the cores it used since the last
    // reading (either may be unknown: nullopt).
    void add(const std::string& replica, std::optional<double> memory_bytes,
             std::optional<double> cpu_cores);
    // Return each replica's use, in replica name order.
    std::vector<ReplicaUse> result() const;

  private:
    struct Series {
        std::vector<double> memory;
        double cpu_sum = 0;
        int cpu_readings = 0;
    };
    std::map<std::string, Series> m_series;
};

}  // namespace kftrain::estimate
