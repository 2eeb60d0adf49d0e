#include "estimate/program/resource_use.h"

#include <algorithm>
#include <cmath>

namespace kftrain::estimate {
namespace {

constexpr double k_rising_share = 0.10;
constexpr double k_rising_bytes = 16.0 * 1024 * 1024;

}  // namespace

bool memory_rising(const std::vector<double>& readings) {
    if (readings.size() < static_cast<size_t>(k_min_rising_readings)) {
        return false;
    }
    const size_t last_third = readings.size() - readings.size() / 3;
    const double before = *std::max_element(readings.begin(), readings.begin() + last_third);
    const double after = *std::max_element(readings.begin() + last_third, readings.end());
    return after > before * (1 + k_rising_share) && after - before > k_rising_bytes;
}

void UseTracker::add(const std::string& replica, std::optional<double> memory_bytes,
                     std::optional<double> cpu_cores) {
    Series& series = m_series[replica];
    if (memory_bytes && std::isfinite(*memory_bytes) && *memory_bytes >= 0) {
        series.memory.push_back(*memory_bytes);
    }
    if (cpu_cores && std::isfinite(*cpu_cores) && *cpu_cores >= 0) {
        series.cpu_sum += *cpu_cores;
        ++series.cpu_readings;
    }
}

std::vector<ReplicaUse> UseTracker::result() const {
    std::vector<ReplicaUse> out;
    for (const auto& [replica, series] : m_series) {
        ReplicaUse use;
        use.replica = replica;
        use.readings = static_cast<int>(series.memory.size());
        if (!series.memory.empty()) {
            use.peak_memory_bytes = *std::max_element(series.memory.begin(), series.memory.end());
            use.memory_rising = memory_rising(series.memory);
        }
        if (series.cpu_readings > 0) {
            use.cpu_cores = series.cpu_sum / series.cpu_readings;
        }
        out.push_back(std::move(use));
    }
    return out;
}

}  // namespace kftrain::estimate
