#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kftrain::diagnose {

// What a diagnosis reads: the facts either backend gathers about a job, already out of kubectl's
// JSON or the local state. Times are RFC 3339 UTC; empty when unknown.

// One line a replica printed, with the time it was printed.
struct LogEvidence {
    std::string time;
    std::string text;
};

// One replica (a pod, or a local process group) and how its last attempt ended.
struct ReplicaEvidence {
    std::string name;    // master-0, worker-1, node-0
    std::string state;   // Pending, Running, Restarting, Succeeded, Failed, Terminated, ...
    std::string reason;  // OOMKilled, Error, CrashLoopBackOff, Unschedulable, Stopped, ...
    std::string message;
    std::string last_reason;       // the previous attempt's end (lastState.terminated.reason)
    std::optional<int> exit_code;  // shell convention: 128 + signal when a signal ended it
    int restarts = 0;
    std::string finished;         // when the attempt that ended, ended
    bool memory_limited = false;  // a memory limit applies (exit 137 then likely means OOM)
    std::optional<double> memory_limit_bytes;  // its memory limit, where known (locally the job
                                               // file's, which nothing enforces there)
    std::vector<LogEvidence> lines;  // the last lines of the attempt that ended, oldest first
    // The attempt before that one, where the replica restarted and it could be read: whether a
    // crash loop fails the same way each time.
    std::vector<LogEvidence> previous_lines;
};

// A Kubernetes event about the job or one of its pods.
struct EventEvidence {
    std::string object;
    std::string reason;  // FailedScheduling, Evicted, Preempted, BackOff, ...
    std::string message;
    std::string time;
    bool warning = false;
};

// What `kftrain estimate --measure` saw a job of this name use, from its saved profile.
struct MeasuredMemory {
    double peak_bytes = 0;         // the highest replica's peak memory
    int peak_replicas = 0;         // the size it was measured at
    double recommended_bytes = 0;  // what to ask for: the peak and its headroom
    std::string measured_at;       // RFC 3339 UTC
    std::string profile;           // the file it was read from
};

// The whole job.
struct JobEvidence {
    std::string name;
    std::string kind;    // PyTorchJob, TrainJob
    std::string phase;   // Created, Running, Restarting, Succeeded, Failed, Suspended
    std::string reason;  // of the job's last condition: BackoffLimitExceeded, DeadlineExceeded
    std::string message;
    std::vector<ReplicaEvidence> replicas;  // those that exist (on a cluster: its pods)
    int replicas_wanted = 0;                // replicas it asks for; 0: unknown
    std::vector<EventEvidence> events;
    std::string queue_state;    // a Kueue workload's: "pending", "evicted", "admitted" or ""
    std::string queue_message;  // what Kueue said of it
    // For a running job: seconds since the last progress report or log line, and how long
    // without either makes it stuck.
    std::optional<double> idle_seconds;
    double stuck_after_seconds = 600;
    // Each rank's compute seconds per step in the last progress report; empty when unknown.
    std::vector<double> rank_step_s;
    // What a measurement of a job of this name saw it use; none where it was never measured.
    std::optional<MeasuredMemory> measured;
};

}  // namespace kftrain::diagnose
