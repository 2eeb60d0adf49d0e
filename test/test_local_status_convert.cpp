#include <catch2/catch.hpp>

#include "cli/local/status_convert.h"

using kftrain::cli::JobPhase;
using kftrain::cli::local::JobState;
using kftrain::cli::local::ReplicaState;
using kftrain::cli::local::status_from_state;

namespace {

JobState running_job() {
    JobState state;
    state.name = "conv";
    state.phase = "Running";
    state.supervisor_pid = 4242;
    ReplicaState master;
    master.name = "master-0";
    master.type = "Master";
    master.state = "Running";
    master.pid = 100;
    ReplicaState worker;
    worker.name = "worker-0";
    worker.type = "Worker";
    worker.state = "Restarting";
    worker.restarts = 1;
    worker.exit_code = 1;
    state.replicas = {master, worker};
    state.last_progress =
        R"({"event":"progress","rank":0,"epoch":2,"epochs":3,"loss":0.25,"eta_s":40})";
    return state;
}

}  // namespace

TEST_CASE("a local job's status carries phase, replicas, counts and progress", "[local]") {
    auto status = status_from_state(running_job(), true);
    CHECK(status.backend == "local");
    CHECK(status.phase == JobPhase::Running);
    CHECK(status.replicas_wanted == 2);
    REQUIRE(status.replicas.size() == 2);
    CHECK(status.replicas[1].restarts == 1);
    CHECK(status.replicas[1].exit_code == 1);
    CHECK(status.counts["Master"].active == 1);
    CHECK(status.counts["Worker"].active == 1);
    REQUIRE(status.progress.has_value());
    CHECK(status.progress->epoch == 2);
    CHECK(status.progress->loss == 0.25);
}

TEST_CASE("a job whose supervisor is gone before it ended is Failed, SupervisorLost", "[local]") {
    auto status = status_from_state(running_job(), false);
    CHECK(status.phase == JobPhase::Failed);
    CHECK(status.reason == "SupervisorLost");
    CHECK(status.replicas[0].state == "Unknown");
    CHECK_FALSE(status.diagnosis.empty());

    JobState finished = running_job();
    finished.phase = "Succeeded";
    CHECK(status_from_state(finished, false).phase == JobPhase::Succeeded);
}
