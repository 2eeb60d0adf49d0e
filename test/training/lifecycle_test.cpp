// Suspend and resume with the real trainer on this machine: kftrain suspend sends SIGTERM,
// kftrain-trainer checkpoints and exits 143, and kftrain resume starts the replicas again,
// which go on from that checkpoint instead of from step 0. Built only with the trainer
// (test/CMakeLists.txt), which CI always builds; backend/local/suspend_cli_test.cpp runs the same
// verbs with the fake replica.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "backend/local/local_fixture.h"

using namespace kftrain;

using kftrain::test::LocalJobs;

namespace job = kftrain::job;

namespace {

long long global_step(const job::JobStatus& status) {
    if (!status.progress) {
        return 0;
    }
    return status.progress->global_step.value_or(status.progress->step.value_or(0));
}

}  // namespace

TEST_CASE("a suspended local job of the real trainer resumes from its checkpoint",
          "[local][trainer][lifecycle]") {
    LocalJobs jobs;
    const std::string checkpoints = jobs.dir() + "/ckpt";
    const std::string file = jobs.dir() + "/pause-real.yaml";
    // 2 ranks x 64 steps an epoch, 2 epochs of mnist-cnn: about ten seconds of training on an
    // idle machine, of which the suspend interrupts the first.
    kftrain::test::write_file(file,
                              "name: pause-real\n"
                              "replicas: 2\n"
                              "env:\n  OMP_NUM_THREADS: \"1\"\n"
                              "trainer:\n"
                              "  dataset: synthetic\n  model: mnist-cnn\n  epochs: 2\n"
                              "  batchSize: 32\n  samples: 4096\n  threads: 1\n"
                              "  logEvery: 2\n  checkpointDir: " +
                                  checkpoints + "\n");
    auto submitted = jobs.kftrain({"submit", "-f", file, "--local"});
    INFO(submitted.out << submitted.err);
    REQUIRE(submitted.code == 0);
    jobs.wait_for("pause-real", [](const job::JobStatus& s) { return global_step(s) >= 4; });

    auto suspended = jobs.kftrain({"suspend", "pause-real", "--local", "--interval", "50ms"});
    INFO(suspended.err);
    REQUIRE(suspended.code == 0);
    auto status = jobs.backend().status("pause-real");
    REQUIRE(status);
    REQUIRE(status->phase == job::JobPhase::Suspended);  // not Succeeded: it was cut short
    CHECK(status->message ==
          "suspended by kftrain suspend; kftrain resume pause-real --local starts it again from "
          "its newest checkpoint");
    for (const auto& replica : status->replicas) {
        CHECK(replica.exit_code == 143);  // the trainer's SIGTERM path: checkpoint, then exit
    }
    const long long stopped_at = global_step(*status);

    auto resumed = jobs.kftrain({"resume", "pause-real", "--local", "--interval", "50ms"});
    INFO(resumed.err);
    REQUIRE(resumed.code == 0);
    auto done = jobs.wait_finished("pause-real");
    CHECK(done.phase == job::JobPhase::Succeeded);

    // The second start of rank 0 says where it resumed: at or after the step it stopped at.
    auto lines = jobs.log_lines("pause-real");
    long long resumed_from = -1;
    const std::string key = "\"resumed_from\":";
    for (const auto& line : lines) {
        auto at = line.find(key);
        if (line.rfind("master-0 | ", 0) == 0 && at != std::string::npos) {
            resumed_from = std::atoll(line.c_str() + at + key.size());
        }
    }
    INFO("stopped at step " << stopped_at);
    CHECK(resumed_from >= stopped_at);
    CHECK(resumed_from > 0);
}
