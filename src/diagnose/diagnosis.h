#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diagnose/evidence.h"
#include "diagnose/log_signals.h"
#include "diagnose/memory_fix.h"
#include "diagnose/quota_refusal.h"
#include "diagnose/stragglers.h"

namespace kftrain::diagnose {

// One replica's end on the job's time axis.
struct ReplicaEnd {
    std::string name;
    std::string state;
    std::string ended;  // when its attempt ended; empty while it runs
    std::optional<int> exit_code;
    int signal = 0;  // the signal that ended it, from its exit code; 0: none
    std::string reason;
    int restarts = 0;
    Cause cause = Cause::None;
    std::string detail;     // what its lines or its pod say
    std::string last_line;  // the last line it printed
    bool first = false;     // the first failure
    // Its attempts that failed: every restart follows one (restarts under OnFailure or
    // ExitCode), and the attempt that ended last, unless the job stopped it.
    int failed_attempts = 0;
    // Whether the attempt before the last failed the same way (both read); nullopt: unknown.
    std::optional<bool> same_as_previous;
};

// A replica failing again and again: what retries cannot mend.
struct CrashLoop {
    std::string replica;
    int attempts = 0;            // its attempts, every one failed
    bool last_two_same = false;  // the last two were read and failed the same way
};

// What `kftrain diagnose` says of a job.
struct Diagnosis {
    std::string kind;     // the job's: PyTorchJob, TrainJob
    std::string verdict;  // failed, pending, stuck, running, succeeded, suspended
    Cause cause = Cause::None;
    std::string replica;  // the first to fail (or the one stuck, pending); empty for the job
    std::string why;      // one line: what happened, for status, describe and the verdict
    std::string hint;
    std::vector<LogEvidence> evidence;      // the lines that show it, timestamped
    std::vector<std::string> consequences;  // replicas that failed because of the first
    std::vector<ReplicaEnd> timeline;       // every replica, ended ones first by time
    std::optional<Straggler> straggler;     // a rank holding the others back, while it runs
    // The first failure is a crash loop: its replica failed in 3 or more attempts, or in 2 the
    // same way (unlike a job that failed once for a passing reason).
    std::optional<CrashLoop> crash_loop;
    // Pods the API server refused at creation because of a ResourceQuota (Cause::Quota).
    std::optional<QuotaFinding> quota;
    // The first failure ran out of its host's memory: its limit, the peak measured, the fix
    // (also the hint).
    std::optional<MemoryFix> memory;
    std::vector<std::string> notes;  // what could not be read ("worker-1: ..."): the
                                     // diagnosis stands on the rest
};

// Diagnose a job from what the backends gathered: put every replica's end on one time axis,
// name the first failure and its cause (a replica that only lost its peer is a consequence,
// never the cause), or say why it is pending, that it is stuck, or that nothing is wrong.
Diagnosis diagnose_job(const JobEvidence& job);

// Return the signal's name: "SIGKILL", "SIGTERM", ..., or "signal N".
std::string signal_name(int signal);

}  // namespace kftrain::diagnose
