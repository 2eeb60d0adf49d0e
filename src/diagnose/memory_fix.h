#pragma once

// What to do about a replica that ran out of memory (docs/diagnose.md, "Out of memory"): its
// limit, the peak `estimate --measure` saw, and what to ask for. Pure.

#include <optional>
#include <string>

#include "diagnose/evidence.h"

namespace kftrain::diagnose {

// A replica out of its host's memory, and the fix.
struct MemoryFix {
    std::string replica;
    std::optional<double> limit_bytes;       // its memory limit, where known
    bool limit_enforced = false;             // the limit applies (a cluster's container); false on
                                             // this machine, where nothing enforces the job file's
    std::optional<MeasuredMemory> measured;  // what a measurement of the job saw
    // "master-0 was OOMKilled at its 128Mi limit; kftrain estimate --measure saw a peak of
    // 312Mi (2026-12-06): set resources.memory to 375Mi"
    std::string text;
};

// Return the fix of a replica whose end was out of memory (detail: what said so): OOMKilled,
// SIGKILLed under a memory limit, or a MemoryError; nullopt for a GPU's memory (CUDA out of
// memory), which no memory limit mends. measured: what estimate --measure saw, if anything.
std::optional<MemoryFix> memory_fix(const ReplicaEvidence& replica, const std::string& detail,
                                    const std::optional<MeasuredMemory>& measured);

}  // namespace kftrain::diagnose
