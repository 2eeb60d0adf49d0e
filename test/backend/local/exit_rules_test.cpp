#include "backend/local/process/exit_rules.h"

#include <catch2/catch.hpp>

using kftrain::backend::local::decide_exit;
using kftrain::backend::local::ExitAction;
using kftrain::backend::local::ReplicaExit;
using kftrain::backend::local::restart_delay_seconds;
using kftrain::backend::local::RestartRules;

TEST_CASE("decide_exit applies restartPolicy and backoffLimit like the operator", "[local]") {
    struct Case {
        const char* name;
        std::string policy;
        std::optional<int> limit;
        bool master;
        int code;
        int restarts_so_far;
        ExitAction action;
        std::string reason;
    };
    const Case cases[] = {
        {"master exits 0: job succeeds",
         "OnFailure",
         {},
         true,
         0,
         0,
         ExitAction::SucceedJob,
         "PyTorchJobSucceeded"},
        {"worker exits 0: done", "OnFailure", {}, false, 0, 0, ExitAction::Finish, ""},
        {"Never, worker exits 1: job fails",
         "Never",
         {},
         false,
         1,
         0,
         ExitAction::FailJob,
         "PyTorchJobFailed"},
        {"Never, master killed: job fails",
         "Never",
         {},
         true,
         137,
         0,
         ExitAction::FailJob,
         "PyTorchJobFailed"},
        {"OnFailure, no limit: restart", "OnFailure", {}, false, 1, 50, ExitAction::Restart, ""},
        {"OnFailure, first failure under limit 2", "OnFailure", 2, false, 1, 0, ExitAction::Restart,
         ""},
        {"OnFailure, second failure reaches limit 2", "OnFailure", 2, false, 1, 1,
         ExitAction::FailJob, "BackoffLimitExceeded"},
        {"OnFailure, limit 0 fails at once", "OnFailure", 0, true, 1, 0, ExitAction::FailJob,
         "BackoffLimitExceeded"},
        {"Always restarts a worker that exits 0",
         "Always",
         {},
         false,
         0,
         0,
         ExitAction::Restart,
         ""},
        {"Always restarts the master that exits 0", "Always", 3, true, 0, 0, ExitAction::Restart,
         ""},
        {"ExitCode restarts on SIGKILL (137)",
         "ExitCode",
         {},
         false,
         137,
         0,
         ExitAction::Restart,
         ""},
        {"ExitCode restarts on 128", "ExitCode", {}, false, 128, 0, ExitAction::Restart, ""},
        {"ExitCode fails on 127",
         "ExitCode",
         {},
         false,
         127,
         0,
         ExitAction::FailJob,
         "PyTorchJobFailed"},
        {"ExitCode fails on 1",
         "ExitCode",
         {},
         true,
         1,
         0,
         ExitAction::FailJob,
         "PyTorchJobFailed"},
        {"ExitCode, master exits 0: job succeeds",
         "ExitCode",
         {},
         true,
         0,
         0,
         ExitAction::SucceedJob,
         "PyTorchJobSucceeded"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        RestartRules rules{c.policy, c.limit};
        auto decision =
            decide_exit(rules, ReplicaExit{c.master ? "master-0" : "worker-1", c.master, c.code},
                        c.restarts_so_far);
        CHECK(decision.action == c.action);
        CHECK(decision.reason == c.reason);
    }
}

TEST_CASE("decide_exit names the replica, its code and the rule in the message", "[local]") {
    auto never = decide_exit({"Never", {}}, {"worker-1", false, 1}, 0);
    CHECK(never.message == "worker-1 exited with code 1 (restartPolicy Never)");
    auto signal = decide_exit({"ExitCode", {}}, {"worker-0", false, 3}, 0);
    CHECK(signal.message == "worker-0 exited with code 3 (restartPolicy ExitCode)");
    auto backoff = decide_exit({"OnFailure", 2}, {"worker-0", false, 137}, 1);
    CHECK(backoff.message ==
          "worker-0 was ended by signal 9 (exit code 137); the replicas' restarts reached "
          "runPolicy.backoffLimit 2 (--retries 1)");
}

TEST_CASE("decide_exit restarts a TrainJob whole while under failurePolicy.maxRestarts",
          "[local][retries]") {
    RestartRules rules{"Never", {}};
    rules.trainjob = true;
    rules.max_restarts = 2;
    CHECK(decide_exit(rules, {"node-1", false, 1}, 0).action == ExitAction::RestartJob);
    CHECK(decide_exit(rules, {"node-1", false, 1}, 1).action == ExitAction::RestartJob);
    auto failed = decide_exit(rules, {"node-1", false, 1}, 2);
    CHECK(failed.action == ExitAction::FailJob);
    CHECK(failed.reason == "FailedJobs");
    CHECK(failed.message ==
          "node-1 exited with code 1; the job restarted 2 time(s), its failurePolicy.maxRestarts");
    CHECK(decide_exit(rules, {"node-0", true, 0}, 0).action == ExitAction::SucceedJob);
    rules.max_restarts.reset();  // no budget: the first failure fails it, as before
    CHECK(decide_exit(rules, {"node-1", false, 1}, 0).action == ExitAction::FailJob);
}

TEST_CASE("restart delays double from 1s and stop at 30s", "[local]") {
    CHECK(restart_delay_seconds(0) == 1);
    CHECK(restart_delay_seconds(1) == 2);
    CHECK(restart_delay_seconds(4) == 16);
    CHECK(restart_delay_seconds(5) == 30);
    CHECK(restart_delay_seconds(100) == 30);
}
