#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kftrain::estimate {

// Share of a GPU's FP32 peak a small training step is assumed to reach.
constexpr double k_gpu_utilization = 0.4;
// Training FLOP/s one CPU core is assumed to sustain (libtorch, FP32).
constexpr double k_cpu_flops_per_core = 1.0e10;

// The compute speed assumed for one replica, with the words that say how it was chosen.
struct DeviceSpeed {
    double flops = 0;         // training FLOP/s of one replica
    std::string description;  // e.g. "1 x a100: 40% of 19.5 TFLOP/s FP32 peak"
};

// Return the FP32 peak FLOP/s of one GPU of a known type (a100, h100, l4, t4, v100).
std::optional<double> gpu_peak_flops(const std::string& gpu);

// Return the GPU types gpu_peak_flops() knows, sorted.
std::vector<std::string> known_gpus();

// Return the assumed speed of one replica with gpus GPUs of type gpu, or, when gpus is 0,
// of cpu_cores cores; nullopt for an unknown GPU type.
std::optional<DeviceSpeed> replica_speed(const std::string& gpu, int gpus, double cpu_cores);

}  // namespace kftrain::estimate
