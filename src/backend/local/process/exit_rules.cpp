#include "backend/local/process/exit_rules.h"

#include <fmt/format.h>

#include <algorithm>

#include "manifest/retries.h"

namespace kftrain::backend::local {
namespace {

bool wants_restart(const std::string& policy, int code) {
    if (policy == "Always") {
        return true;
    }
    if (policy == "OnFailure") {
        return code != 0;
    }
    if (policy == "ExitCode") {
        return code >= 128;
    }
    return false;
}

std::string describe_code(int code) {
    if (code > 128) {
        return fmt::format("was ended by signal {} (exit code {})", code - 128, code);
    }
    return fmt::format("exited with code {}", code);
}

}  // namespace

ExitDecision decide_exit(const RestartRules& rules, const ReplicaExit& exit, int restarts_so_far) {
    if (rules.trainjob && exit.code != 0 && rules.max_restarts) {
        if (rules.policy == "ExitCode" && exit.code < 128) {  // permanent: no restart helps
            return {ExitAction::FailJob, "FailedJobs",
                    fmt::format("{} {} (restartPolicy ExitCode: a permanent code)", exit.name,
                                describe_code(exit.code))};
        }
        if (restarts_so_far < *rules.max_restarts) {
            return {ExitAction::RestartJob, "", ""};
        }
        return {ExitAction::FailJob, "FailedJobs",
                fmt::format("{} {}; the job restarted {} time(s), its failurePolicy.maxRestarts",
                            exit.name, describe_code(exit.code), *rules.max_restarts)};
    }
    if (wants_restart(rules.policy, exit.code)) {
        if (rules.backoff_limit && restarts_so_far + 1 >= *rules.backoff_limit) {
            return {ExitAction::FailJob, "BackoffLimitExceeded",
                    fmt::format("{} {}; the replicas' restarts reached runPolicy.backoffLimit {} "
                                "(--retries {})",
                                exit.name, describe_code(exit.code), *rules.backoff_limit,
                                manifest::retries_of_backoff_limit(*rules.backoff_limit))};
        }
        return {ExitAction::Restart, "", ""};
    }
    if (exit.code != 0) {
        if (rules.trainjob) {
            return {ExitAction::FailJob, "FailedJobs",
                    fmt::format("{} {}", exit.name, describe_code(exit.code))};
        }
        return {ExitAction::FailJob, rules.kind + "Failed",
                fmt::format("{} {} (restartPolicy {})", exit.name, describe_code(exit.code),
                            rules.policy)};
    }
    if (exit.master) {
        return {ExitAction::SucceedJob, rules.kind + "Succeeded",
                fmt::format("{} completed successfully", exit.name)};
    }
    return {ExitAction::Finish, "", ""};
}

int restart_delay_seconds(int restarts_of_replica) {
    int shift = std::clamp(restarts_of_replica, 0, 5);
    return std::min(1 << shift, 30);
}

}  // namespace kftrain::backend::local
