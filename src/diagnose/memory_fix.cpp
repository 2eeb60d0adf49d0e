#include "diagnose/memory_fix.h"

#include <fmt/format.h>

#include <csignal>

#include "manifest/k8s/quantity.h"

namespace kftrain::diagnose {
namespace {

std::string memory(double bytes) {
    return manifest::quantity_text("memory", bytes);
}

// Whether the kernel killed it for its memory: OOMKilled, or SIGKILL under a memory limit.
bool oom_killed(const ReplicaEvidence& r) {
    return r.reason == "OOMKilled" || r.last_reason == "OOMKilled" ||
           (r.memory_limited && r.exit_code && *r.exit_code == 128 + SIGKILL);
}

// What happened, and at which limit.
std::string what_happened(const ReplicaEvidence& r) {
    const std::optional<double>& limit = r.memory_limit_bytes;
    if (oom_killed(r)) {
        if (limit) {
            return fmt::format("{} was OOMKilled at its {} limit", r.name, memory(*limit));
        }
        return r.memory_limited ? fmt::format("{} was OOMKilled at its memory limit", r.name)
                                : fmt::format(
                                      "{} was OOMKilled with no memory limit set (its "
                                      "node ran short)",
                                      r.name);
    }
    if (!limit) {
        return r.name + " ran out of memory";
    }
    return r.memory_limited
               ? fmt::format("{} ran out of memory under its {} limit", r.name, memory(*limit))
               : fmt::format(
                     "{} ran out of memory; its limit is {} (a cluster enforces it, "
                     "this machine does not)",
                     r.name, memory(*limit));
}

// What to do, from what a measurement saw (if anything).
std::string what_to_do(const std::optional<double>& limit,
                       const std::optional<MeasuredMemory>& measured) {
    if (!measured) {
        return "measure what it needs with kftrain estimate --measure, then give it that "
               "(resources.memory), or lower the batch size";
    }
    const std::string day = measured->measured_at.substr(0, 10);
    if (!limit || measured->recommended_bytes > *limit) {
        return fmt::format(
            "kftrain estimate --measure saw a peak of {} ({}): set "
            "resources.memory to {}",
            memory(measured->peak_bytes), day, memory(measured->recommended_bytes));
    }
    return fmt::format(
        "kftrain estimate --measure saw a peak of only {} ({}), well under that "
        "limit: this run needed more than the one measured (a larger batch, more "
        "data, a leak?); measure it again as it runs now, or lower the batch size",
        memory(measured->peak_bytes), day);
}

}  // namespace

std::optional<MemoryFix> memory_fix(const ReplicaEvidence& replica, const std::string& detail,
                                    const std::optional<MeasuredMemory>& measured) {
    const bool gpu =
        detail.find("CUDA") != std::string::npos || detail.find("cuda") != std::string::npos;
    if (gpu && !oom_killed(replica)) {
        return std::nullopt;
    }
    MemoryFix fix;
    fix.replica = replica.name;
    fix.limit_bytes = replica.memory_limit_bytes;
    fix.limit_enforced = replica.memory_limited;
    fix.measured = measured;
    fix.text = fmt::format("{}; {}", what_happened(replica),
                           what_to_do(replica.memory_limit_bytes, measured));
    return fix;
}

}  // namespace kftrain::diagnose
