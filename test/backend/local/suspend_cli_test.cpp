// End-to-end tests of suspend and resume on the local backend: the fake replica checkpoints
// on SIGTERM as the trainer does, and its step count proves that a resumed job went on from
// its checkpoint.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backend/local/local_fixture.h"
#include "job/status.h"
#include "support/text.h"

using namespace kftrain;

using kftrain::test::contains;
using kftrain::test::contains_line;
using kftrain::test::LocalJobs;

namespace job = kftrain::job;

namespace {

// Return the step of the master's last progress line, 0 before the first.
long long step_of(const job::JobStatus& status) {
    return status.progress && status.progress->step ? *status.progress->step : 0;
}

bool none_running(const job::JobStatus& status) {
    for (const auto& replica : status.replicas) {
        if (replica.state == "Running" || replica.state == "Pending") {
            return false;
        }
    }
    return true;
}

// Return the number the line says after key ("step":12 -> 12), or -1.
long long number_after(const std::string& line, const std::string& key) {
    auto at = line.find(key);
    return at == std::string::npos ? -1 : std::atoll(line.c_str() + at + key.size());
}

}  // namespace

TEST_CASE("a suspend whose checkpoint fails says so, and resume names the step it starts from",
          "[local][lifecycle]") {
    LocalJobs jobs;
    const std::string checkpoints = jobs.dir() + "/ckpt";
    std::filesystem::create_directories(checkpoints);
    auto file = jobs.job_file("full", 1,
                              {"--steps", "100000", "--step-ms", "20", "--checkpoint-dir",
                               checkpoints, "--checkpoint-fails", "No space left on device"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_for("full", [](const job::JobStatus& s) { return step_of(s) >= 3; });

    auto suspended = jobs.kftrain({"suspend", "full", "--local", "--interval", "50ms"});
    INFO(suspended.err);
    CHECK(suspended.code == 1);
    CHECK(suspended.out.empty());
    CHECK(contains(suspended.err,
                   "kftrain: error: pytorchjob/full is suspended, but its last "
                   "checkpoint failed: step "));
    CHECK(contains(suspended.err,
                   " NOT written: No space left on device; none is written: a "
                   "resume starts over\n"));
    auto shown = jobs.kftrain({"status", "full", "--local"});
    CHECK(contains(shown.out, "\nCheckpoint: step "));
    CHECK(contains(shown.out,
                   " NOT written: No space left on device; none is written: a "
                   "resume starts over\n"));
    auto json_status = jobs.kftrain({"status", "full", "--local", "-o", "json"});
    CHECK(contains(json_status.out, "\"failed\": true"));

    auto resumed = jobs.kftrain({"resume", "full", "--local", "--interval", "50ms"});
    CHECK(resumed.code == 0);
    CHECK(resumed.out == "pytorchjob/full resumed from the start: no checkpoint was written\n");
    CHECK(jobs.kftrain({"delete", "full", "--local"}).code == 0);
}

TEST_CASE("a suspended local job stops with SIGTERM and resumes from its checkpoint",
          "[local][lifecycle]") {
    LocalJobs jobs;
    const std::string checkpoints = jobs.dir() + "/ckpt";
    std::filesystem::create_directories(checkpoints);
    auto file = jobs.job_file(
        "pause", 2, {"--steps", "300", "--step-ms", "30", "--checkpoint-dir", checkpoints},
        "restartPolicy: OnFailure\nrunPolicy:\n  backoffLimit: 1\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_for("pause", [](const job::JobStatus& s) { return step_of(s) >= 5; });

    auto suspended = jobs.kftrain({"suspend", "pause", "--local", "--interval", "50ms"});
    CHECK(suspended.err == "");
    REQUIRE(suspended.code == 0);
    CHECK(suspended.out == "pytorchjob/pause suspended\n");

    // Suspended, not Failed, and nothing restarted: every replica stopped by the suspend.
    auto status = jobs.backend().status("pause");
    REQUIRE(status);
    CHECK(status->phase == job::JobPhase::Suspended);
    CHECK(status->reason == "PyTorchJobSuspended");
    // The fake replica is not kftrain-trainer: whether it checkpoints is its own affair.
    CHECK(status->message ==
          "suspended by kftrain suspend; kftrain resume pause --local starts it again (its "
          "program goes on from where it saved, if it saves)");
    CHECK_FALSE(status->suspended_since.empty());
    CHECK(none_running(*status));
    for (const auto& replica : status->replicas) {
        CAPTURE(replica.name);
        CHECK(replica.state == "Terminated");
        CHECK(replica.reason == "Suspended");
        CHECK(replica.exit_code == 143);
        CHECK(replica.restarts == 0);
    }
    long long saved = 0;
    std::ifstream(checkpoints + "/step") >> saved;
    CHECK(saved >= 5);
    CHECK(saved < 300);
    auto shown = jobs.kftrain({"status", "pause", "--local"});
    CHECK(shown.out.find("State:      Suspended (PyTorchJobSuspended)") != std::string::npos);
    CHECK(shown.out.find("\nSuspended:  ") != std::string::npos);
    CHECK(jobs.kftrain({"wait", "pause", "--local", "--for", "suspended"}).code == 0);
    // Suspending it again changes nothing.
    CHECK(jobs.kftrain({"suspend", "pause", "--local", "--interval", "50ms"}).code == 0);

    auto resumed = jobs.kftrain({"resume", "pause", "--local", "--interval", "50ms"});
    CHECK(resumed.err == "");
    REQUIRE(resumed.code == 0);
    CHECK(resumed.out ==
          "pytorchjob/pause resumed from its checkpoint of step " + std::to_string(saved) + "\n");
    auto again = jobs.backend().status("pause");
    REQUIRE(again);
    CHECK(again->phase != job::JobPhase::Suspended);

    auto done = jobs.wait_finished("pause");
    CHECK(done.phase == job::JobPhase::Succeeded);
    // The second start resumed from the checkpoint and went on with the next step.
    auto lines = jobs.log_lines("pause");
    const std::string resumed_start = "\"resumed_from\":" + std::to_string(saved) + "}";
    size_t start = lines.size();
    for (size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].rfind("master-0 | ", 0) == 0 &&
            lines[i].find(resumed_start) != std::string::npos) {
            start = i;
        }
    }
    REQUIRE(start < lines.size());
    long long first = -1;
    long long last = -1;
    for (size_t i = start + 1; i < lines.size(); ++i) {
        if (lines[i].rfind("master-0 | ", 0) == 0 &&
            lines[i].find("\"event\":\"progress\"") != std::string::npos) {
            last = number_after(lines[i], "\"step\":");
            first = first < 0 ? last : first;
        }
    }
    CHECK(first == saved + 1);
    CHECK(last == 300);
    CHECK(contains_line(lines, "\"event\":\"checkpoint\""));
}

TEST_CASE("local suspend and resume refuse a finished or missing job, scale needs a cluster",
          "[local][lifecycle]") {
    LocalJobs jobs;
    auto file = jobs.job_file("quick", 1, {"--steps", "1"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_finished("quick");

    auto suspend = jobs.kftrain({"suspend", "quick", "--local"});
    CHECK(suspend.code == 2);
    CHECK(suspend.out == "");
    CHECK(suspend.err ==
          "kftrain: error: cannot suspend pytorchjob/quick: it has already Succeeded and will "
          "not run again\n");
    auto resume = jobs.kftrain({"resume", "quick", "--local"});
    CHECK(resume.code == 2);
    CHECK(resume.err ==
          "kftrain: error: cannot resume pytorchjob/quick: it has already Succeeded and will "
          "not run again\n");
    auto scale = jobs.kftrain({"scale", "quick", "--replicas", "3", "--local"});
    CHECK(scale.code == 2);
    CHECK(scale.err ==
          "kftrain: error: cannot scale pytorchjob/quick to 3 Worker replicas: a local job runs "
          "the replicas it was submitted with (scale needs a cluster with an elastic "
          "PyTorchJob)\n");
    CHECK(jobs.kftrain({"suspend", "nothing-here", "--local"}).code == 3);
    CHECK(jobs.kftrain({"resume", "nothing-here", "--local"}).code == 3);
}
