#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diagnose/evidence.h"

namespace kftrain::diagnose {

// What went wrong, as far as kftrain can tell.
enum class Cause {
    None,
    OutOfMemory,    // OOMKilled, exit 137 under a memory limit, MemoryError, CUDA out of memory
    Signal,         // killed by a signal
    Exception,      // the program raised: a Python traceback, the trainer's error event
    PeerGone,       // a collective lost its peer: the consequence of another replica's end
    Rendezvous,     // never reached the master: a store or rendezvous timeout
    Nccl,           // an NCCL error or watchdog timeout
    Divergence,     // the trainer stopped on a loss that stayed NaN or infinite
    ImagePull,      // the image cannot be pulled
    Unschedulable,  // no node can take the pod
    CrashLoop,      // the container keeps crashing
    Deadline,       // runPolicy.activeDeadlineSeconds ran out
    Evicted,        // the kubelet evicted the pod
    Preempted,      // a higher-priority workload took its place
    QueueWaiting,   // Kueue has not admitted it
    QueueEvicted,   // Kueue evicted it
    Quota,          // a ResourceQuota refused some of its pods at creation
    Stuck,          // running, but nothing new for a while
    Unknown,        // it failed, for no reason kftrain recognizes
};

// Return the cause's name in JSON and tables: "out-of-memory", "rendezvous-timeout", ...
const char* cause_id(Cause cause);

// Return the cause as a phrase: "out of memory", "a rendezvous or store timeout", ...
const char* cause_title(Cause cause);

// Return what to do about the cause, one sentence.
const char* cause_hint(Cause cause);

// What one replica's lines say: the cause they show and the lines that show it.
struct LogFinding {
    Cause cause = Cause::None;
    std::string detail;  // the line that names it: "ValueError: bad batch shape"
    std::vector<LogEvidence> lines;
};

// Read a replica's last lines: a Python traceback (its last line says what was raised, and
// may itself be a timeout, a lost peer or out of memory), the trainer's error event, or a line
// naming one of the causes above. Cause::None when nothing in them says why.
LogFinding read_log(const std::vector<LogEvidence>& lines);

}  // namespace kftrain::diagnose
