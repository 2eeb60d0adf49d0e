#pragma once

#include <optional>
#include <string>

namespace kftrain::backend::local {

// The job file's rules for replicas that end: restartPolicy and backoffLimit.
struct RestartRules {
    std::string policy = "OnFailure";  // Never, OnFailure, Always or ExitCode
    std::optional<int> backoff_limit;  // restarts of all replicas before the job fails
    // A TrainJob's JobSet: a failing node fails the job (FailedJobs), or, while the job has
    // restarted fewer than max_restarts times (failurePolicy.maxRestarts), restarts every node.
    bool trainjob = false;
    std::optional<int> max_restarts;
    std::string kind = "PyTorchJob";  // a v1 kind, for the reasons its controller writes
};

// What the supervisor does when a replica's process ends.
enum class ExitAction {
    Finish,      // the replica is done; the job goes on
    Restart,     // start the replica again
    RestartJob,  // stop every replica and start them all again (a JobSet's restart)
    SucceedJob,  // the Master succeeded: the job Succeeded, stop the rest
    FailJob,     // the job Failed: stop the rest
};

// An action with the reason and message the job records when it ends.
struct ExitDecision {
    ExitAction action = ExitAction::Finish;
    std::string reason;  // PyTorchJobFailed (the kind's), BackoffLimitExceeded
    std::string message;
};

// A replica's process that ended.
struct ReplicaExit {
    std::string name;     // master-0, worker-1
    bool master = false;  // the replica whose success is the job's (a v1 kind's Master)
    int code = 0;         // shell convention: 128 + signal when a signal ended it
};

// Decide what follows a replica's exit, like the Training Operator: Never
// fails the job on a non-zero code; OnFailure restarts on a non-zero code;
// Always restarts on any code (even 0, as the kubelet does); ExitCode
// restarts on codes >= 128 (signals, OOM kills) and fails on 1-127. A restart
// that would bring the job's restarts to backoffLimit fails the job instead
// (BackoffLimitExceeded). The Master ending with 0 without a restart makes
// the job Succeeded; a Worker ending with 0 is simply done. A TrainJob's node ending with a
// non-zero code restarts the whole job while its restarts (restarts_so_far: the job's own for
// a TrainJob) are under max_restarts, and fails it after.
ExitDecision decide_exit(const RestartRules& rules, const ReplicaExit& exit, int restarts_so_far);

// Return the seconds to wait before a replica's next restart: 1, 2, 4 ... 30.
int restart_delay_seconds(int restarts_of_replica);

}  // namespace kftrain::backend::local
