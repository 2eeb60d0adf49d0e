#pragma once

#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "job/status.h"

namespace kftrain::job {

// What `logs` asks for.
struct LogOptions {
    bool follow = false;
    std::optional<int> tail;  // last N lines per replica
    std::string since;        // a duration as kubectl takes it: 10m, 1h
    bool timestamps = false;
    std::string replica;    // "", "master", "worker", "worker-3", "master-0"
    bool previous = false;  // the last terminated container (locally: the attempt before the
                            // last restart)
    std::chrono::milliseconds poll_interval{2000};  // following: how often to look for pods
    bool all = false;  // every line (and followed, every replica) however many (logs --all)
    // The job's status as the caller just read it (not following): a backend that would read
    // the job and its replicas again to find them takes them from here (diagnose reads once).
    const JobStatus* known = nullptr;
};

// One line of a replica's output.
struct LogLine {
    std::string replica;  // master-0, worker-2
    std::string text;     // without the newline
    bool notice = false;  // a message about the replica (waiting, unreadable) for stderr
};

// Receives log lines; called from one thread at a time.
using LogSink = std::function<void(const LogLine&)>;

// Bound a read of many replicas (more than k_many_replicas, no --tail, not --all, not
// following) to the last k_many_replicas_tail lines of each; return the notice that says so,
// "" when the read is left as it was.
inline std::string bound_many_replicas(LogOptions& options, size_t replicas) {
    if (replicas <= k_many_replicas || options.tail || options.all || options.follow) {
        return "";
    }
    options.tail = k_many_replicas_tail;
    return fmt::format(
        "{} replicas: printing the last {} lines of each (--tail N for another count, --all for "
        "every line, --replica to choose)",
        replicas, k_many_replicas_tail);
}

// Return the notice of a follow of many replicas that follows only lead and those that fail
// or restart.
inline std::string following_many_note(size_t replicas, const std::string& lead) {
    return fmt::format(
        "{} replicas: following {} and any replica that fails or restarts (--replica NAME to "
        "follow another, --all for every one)",
        replicas, lead.empty() ? "the lead replica" : lead);
}

}  // namespace kftrain::job
