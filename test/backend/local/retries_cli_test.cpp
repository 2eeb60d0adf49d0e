// The retry budget as users meet it: `kftrain run`'s default ends a program that can never start,
// --retries N lets a job that fails once succeed or fail, for the v1 kinds and a TrainJob (whose
// JobSet restarts every node), and diagnose calls a crash loop one.

#include <catch2/catch.hpp>
#include <filesystem>

#include "backend/local/local_fixture.h"
#include "support/files.h"
#include "support/text.h"

using namespace kftrain;
using kftrain::test::LocalJobs;

namespace {}  // namespace

TEST_CASE(
    "run's default budget ends a program that cannot start, and diagnose calls it a crash "
    "loop",
    "[local][retries]") {
    LocalJobs jobs;
    const std::string code = jobs.dir() + "/code";
    std::filesystem::create_directories(code);
    test::write_file(code + "/train.py", "import kftrain_no_such_module\n");
    auto run = test::run_kftrain({"run", "--replicas", "2", "--local", "--name", "cannot-start",
                                  "--code", code, "--wait", "--", "python3", "train.py"},
                                 {{"XDG_STATE_HOME", jobs.dir() + "/state"}});
    CHECK(run.code == 1);  // Failed, on its own: nothing stopped it
    job::JobStatus status = jobs.wait_finished("cannot-start");
    CHECK(status.phase == job::JobPhase::Failed);
    CHECK(status.reason == "BackoffLimitExceeded");
    CHECK(kftrain::test::contains(status.message, "runPolicy.backoffLimit 4 (--retries 3)"));

    auto diagnosed = jobs.kftrain({"diagnose", "cannot-start", "--local"});
    CHECK(diagnosed.code == 0);
    INFO(diagnosed.out);
    CHECK(kftrain::test::contains(diagnosed.out, "Why:        crash loop: each of "));
    CHECK(kftrain::test::contains(diagnosed.out,
                                  "ModuleNotFoundError: No module named 'kftrain_no_such_module'"));
    CHECK(kftrain::test::contains(diagnosed.out, "retrying will not mend it"));
    auto json = jobs.kftrain({"diagnose", "cannot-start", "--local", "-o", "json"});
    REQUIRE(json.code == 0);
    auto parsed = nlohmann::json::parse(json.out);
    CHECK(parsed["cause"] == "exception");
    REQUIRE(parsed["crashLoop"].is_object());
    CHECK(parsed["crashLoop"]["attempts"].get<int>() >= 2);

    auto shown = jobs.kftrain({"status", "cannot-start", "--local"});
    CHECK(kftrain::test::contains(shown.out, "Why:        crash loop: each of "));
}

TEST_CASE("a job that fails once succeeds with --retries 1 and fails with --retries 0",
          "[local][retries]") {
    LocalJobs jobs;
    for (const char* kind : {"PyTorchJob", "TrainJob"}) {
        for (const char* retries : {"1", "0"}) {
            const std::string name =
                std::string(kind == std::string("TrainJob") ? "v2" : "v1") + "-retries-" + retries;
            INFO(name);
            const std::string peers = jobs.dir() + "/" + name + ".peers";
            std::filesystem::create_directories(peers);
            // Rank 0 waits for its peer, so that it cannot succeed before rank 1 fails.
            auto file = jobs.job_file(name, 2,
                                      {"--steps", "1", "--fail-rank", "1", "--fail-once",
                                       jobs.dir() + "/" + name + ".failed", "--wait-peers", peers},
                                      std::string("kind: ") + kind + "\n");
            REQUIRE(jobs.kftrain({"submit", "-f", file, "--local", "--retries", retries}).code ==
                    0);
            job::JobStatus status = jobs.wait_finished(name);
            REQUIRE(status.replicas.size() == 2);
            if (std::string(retries) == "1") {
                CHECK(status.phase == job::JobPhase::Succeeded);
                CHECK(status.replicas[1].restarts == 1);
                // A TrainJob's JobSet restarts every node; the operator only the one that failed.
                CHECK(status.replicas[0].restarts == (std::string(kind) == "TrainJob" ? 1 : 0));
            } else {
                CHECK(status.phase == job::JobPhase::Failed);
                CHECK(status.replicas[1].restarts == 0);
                CHECK(status.reason ==
                      (std::string(kind) == "TrainJob" ? "FailedJobs" : "BackoffLimitExceeded"));
            }
        }
    }
}

TEST_CASE("a local TrainJob that keeps failing ends when its restarts reach the budget",
          "[local][retries]") {
    LocalJobs jobs;
    auto file =
        jobs.job_file("v2-loop", 2, {"--steps", "1", "--fail-rank", "1"}, "kind: TrainJob\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local", "--retries", "2"}).code == 0);
    job::JobStatus status = jobs.wait_finished("v2-loop");
    CHECK(status.phase == job::JobPhase::Failed);
    CHECK(status.reason == "FailedJobs");
    CHECK(status.message ==
          "node-1 exited with code 1; the job restarted 2 time(s), its failurePolicy.maxRestarts");
    CHECK(status.replicas[0].restarts == 2);
    CHECK(status.replicas[1].restarts == 2);
}

TEST_CASE(
    "a local TrainJob under restartPolicy ExitCode fails at a permanent code, retries a signal",
    "[local][retries]") {
    LocalJobs jobs;
    for (const char* code : {"3", "137"}) {
        const std::string name = std::string("v2-exit-") + code;
        INFO(name);
        auto file = jobs.job_file(name, 2,
                                  {"--steps", "1", "--fail-rank", "1", "--fail-code", code,
                                   "--fail-once", jobs.dir() + "/" + name + ".failed"},
                                  "kind: TrainJob\nrestartPolicy: ExitCode\n");
        REQUIRE(jobs.kftrain({"submit", "-f", file, "--local", "--retries", "2"}).code == 0);
        job::JobStatus status = jobs.wait_finished(name);
        if (std::string(code) == "3") {
            CHECK(status.phase == job::JobPhase::Failed);
            CHECK(status.message ==
                  "node-1 exited with code 3 (restartPolicy ExitCode: a permanent code)");
            CHECK(status.replicas[1].restarts == 0);
        } else {
            CHECK(status.phase == job::JobPhase::Succeeded);
            CHECK(status.replicas[1].restarts == 1);
        }
    }
}
