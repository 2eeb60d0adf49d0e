#include "estimate/program/sizing.h"

#include <fmt/format.h>

#include <cmath>

#include "manifest/k8s/quantity.h"
#include "util/text.h"

namespace kftrain::estimate {
namespace {

constexpr double k_mib = 1024.0 * 1024;
// A replica's peak at the largest size over its peak at the smallest by more than this share
// and k_growth_bytes grows with the replica count.
constexpr double k_growth_share = 0.25;
constexpr double k_growth_bytes = 32 * k_mib;

std::string memory(double bytes) {
    return manifest::quantity_text("memory", bytes);
}

// The highest replica peak of one size, and which replica it was.
std::optional<std::pair<double, std::string>> size_peak(const SizeMeasurement& size) {
    std::optional<std::pair<double, std::string>> peak;
    for (const ReplicaUse& use : size.use) {
        if (use.peak_memory_bytes && (!peak || *use.peak_memory_bytes > peak->first)) {
            peak = std::pair{*use.peak_memory_bytes, use.replica};
        }
    }
    return peak;
}

void add_growth_warnings(const std::vector<SizeMeasurement>& sizes, Sizing& sizing) {
    const SizeMeasurement* smallest = nullptr;
    const SizeMeasurement* largest = nullptr;
    for (const SizeMeasurement& size : sizes) {
        if (!size_peak(size)) {
            continue;
        }
        if (smallest == nullptr || size.replicas < smallest->replicas) {
            smallest = &size;
        }
        if (largest == nullptr || size.replicas > largest->replicas) {
            largest = &size;
        }
        for (const ReplicaUse& use : size.use) {
            if (use.memory_rising) {
                sizing.warnings.push_back(fmt::format(
                    "{} at {}: memory still grew when the measurement ended (a leak?): a longer "
                    "run needs more than the {} peak measured",
                    use.replica, util::counted(size.replicas, "replica"),
                    memory(*use.peak_memory_bytes)));
            }
        }
    }
    if (smallest == nullptr || smallest == largest) {
        return;
    }
    const double low = size_peak(*smallest)->first;
    const double high = size_peak(*largest)->first;
    if (high > low * (1 + k_growth_share) && high - low > k_growth_bytes) {
        sizing.warnings.push_back(fmt::format(
            "a replica's peak grows with the replica count: {} at {}, {} at {}: a larger job "
            "needs more than measured",
            memory(low), util::counted(smallest->replicas, "replica"), memory(high),
            util::counted(largest->replicas, "replica")));
    }
}

}  // namespace

std::optional<Sizing> recommend_sizing(const std::vector<SizeMeasurement>& sizes) {
    Sizing sizing;
    bool read = false;
    for (const SizeMeasurement& size : sizes) {
        for (const ReplicaUse& use : size.use) {
            if (use.peak_memory_bytes &&
                (!read || *use.peak_memory_bytes > sizing.peak_memory_bytes)) {
                read = true;
                sizing.peak_memory_bytes = *use.peak_memory_bytes;
                sizing.peak_replicas = size.replicas;
                sizing.peak_replica = use.replica;
            }
            if (use.cpu_cores && (!sizing.cpu_cores || *use.cpu_cores > *sizing.cpu_cores)) {
                sizing.cpu_cores = *use.cpu_cores;
            }
            if (use.peak_device_memory_bytes &&
                (!sizing.peak_device_memory_bytes ||
                 *use.peak_device_memory_bytes > *sizing.peak_device_memory_bytes)) {
                sizing.peak_device_memory_bytes = use.peak_device_memory_bytes;
            }
        }
    }
    if (!read) {
        return std::nullopt;
    }
    sizing.memory_bytes =
        std::max(1.0, std::ceil(sizing.peak_memory_bytes * (1 + k_memory_headroom) / k_mib)) *
        k_mib;
    if (sizing.cpu_cores) {
        sizing.cpu_cores =
            std::max(1.0, std::ceil(*sizing.cpu_cores / k_cpu_step - 1e-9)) * k_cpu_step;
    }
    add_growth_warnings(sizes, sizing);
    return sizing;
}

std::string sizing_text(const Sizing& sizing) {
    std::string text =
        fmt::format("memory {} (peak {} of {} at {}, +{:.0f}%)", memory(sizing.memory_bytes),
                    memory(sizing.peak_memory_bytes), sizing.peak_replica,
                    util::counted(sizing.peak_replicas, "replica"), k_memory_headroom * 100);
    if (sizing.cpu_cores) {
        text += ", cpu " + manifest::quantity_text("cpu", *sizing.cpu_cores);
    }
    return text;
}

std::vector<SizingFinding> check_job_resources(const Sizing& sizing,
                                               std::optional<double> memory_limit,
                                               std::optional<double> memory_request,
                                               std::optional<double> cpu_request) {
    std::vector<SizingFinding> out;
    if (memory_limit && *memory_limit < sizing.peak_memory_bytes) {
        out.push_back({true, fmt::format("will be OOMKilled: peak {} measured at {} > limit {}; "
                                         "ask for {} (resources.memory)",
                                         memory(sizing.peak_memory_bytes),
                                         util::counted(sizing.peak_replicas, "replica"),
                                         memory(*memory_limit), memory(sizing.memory_bytes))});
    }
    if (memory_request && *memory_request > sizing.memory_bytes * k_waste_ratio &&
        *memory_request - sizing.memory_bytes > k_waste_memory_bytes) {
        out.push_back({false, fmt::format("requests {} of memory, where the peak measured is {}: "
                                          "quota others cannot use; {} is enough",
                                          memory(*memory_request), memory(sizing.peak_memory_bytes),
                                          memory(sizing.memory_bytes))});
    }
    if (cpu_request && sizing.cpu_cores && *cpu_request > *sizing.cpu_cores * k_waste_ratio &&
        *cpu_request - *sizing.cpu_cores > k_waste_cores) {
        out.push_back({false, fmt::format("requests {} CPU, where a replica used at most {}: quota "
                                          "others cannot use",
                                          manifest::quantity_text("cpu", *cpu_request),
                                          manifest::quantity_text("cpu", *sizing.cpu_cores))});
    }
    return out;
}

}  // namespace kftrain::estimate
