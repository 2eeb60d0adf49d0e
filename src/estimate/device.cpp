#include "estimate/device.h"

#include <fmt/format.h>

#include <map>

namespace kftrain::estimate {
namespace {

// FP32 (non-tensor-core) peaks from the vendors' data sheets: A100 SXM, H100 SXM,
// V100 SXM2, T4, L4.
const std::map<std::string, double>& peaks() {
    static const std::map<std::string, double> k_peaks = {
        {"a100", 19.5e12}, {"h100", 67.0e12}, {"l4", 30.3e12}, {"t4", 8.1e12}, {"v100", 15.7e12},
    };
    return k_peaks;
}

}  // namespace

std::optional<double> gpu_peak_flops(const std::string& gpu) {
    const auto it = peaks().find(gpu);
    if (it == peaks().end()) {
        return std::nullopt;
    }
    return it->second;
}

std::vector<std::string> known_gpus() {
    std::vector<std::string> names;
    for (const auto& [name, peak] : peaks()) {
        names.push_back(name);
    }
    return names;
}

std::optional<DeviceSpeed> replica_speed(const std::string& gpu, int gpus, double cpu_cores) {
    if (gpus > 0) {
        const auto peak = gpu_peak_flops(gpu);
        if (!peak) {
            return std::nullopt;
        }
        return DeviceSpeed{*peak * k_gpu_utilization * gpus,
                           fmt::format("{} x {}: {:.0f}% of {:.1f} TFLOP/s FP32 peak each", gpus,
                                       gpu, k_gpu_utilization * 100, *peak / 1e12)};
    }
    return DeviceSpeed{
        k_cpu_flops_per_core * cpu_cores,
        fmt::format("{:g} CPU cores at {:g} GFLOP/s each", cpu_cores, k_cpu_flops_per_core / 1e9)};
}

}  // namespace kftrain::estimate
