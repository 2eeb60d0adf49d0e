#include "backend/local/status_convert.h"

#include <catch2/catch.hpp>

using namespace kftrain;

using kftrain::backend::local::JobState;
using kftrain::backend::local::ReplicaState;
using kftrain::backend::local::status_from_state;
using kftrain::job::JobPhase;

namespace job = kftrain::job;

namespace {

JobState running_state() {
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
    auto status = status_from_state(running_state(), true);
    CHECK(status.backend == "local");
    CHECK(status.phase == job::JobPhase::Running);
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
    auto status = status_from_state(running_state(), false);
    CHECK(status.phase == job::JobPhase::Failed);
    CHECK(status.reason == "SupervisorLost");
    CHECK(status.replicas[0].state == "Unknown");
    CHECK_FALSE(status.diagnosis.empty());

    JobState finished = running_state();
    finished.phase = "Succeeded";
    CHECK(status_from_state(finished, false).phase == job::JobPhase::Succeeded);
}

TEST_CASE("a local job's replicas ask for the job file's resources", "[local]") {
    JobState state = running_state();
    state.cpu = "1500m";
    state.memory = "2Gi";
    auto status = status_from_state(state, true);
    REQUIRE(status.requests.size() == 2);
    CHECK(status.requests[0].type == "Master");
    CHECK(status.requests[0].replicas == 1);
    CHECK(status.requests[1].type == "Worker");
    CHECK(status.requests[1].cpu_cores == 1.5);
    CHECK(status.requests[1].memory_bytes == 2.0 * 1024 * 1024 * 1024);
}

TEST_CASE("a local replica carries the job file's memory limit, which nothing enforces here",
          "[local][memory]") {
    JobState state = running_state();
    state.memory = "2Gi";
    auto status = status_from_state(state, true);
    CHECK(status.replicas[0].memory_limit_bytes == 2.0 * 1024 * 1024 * 1024);
    CHECK_FALSE(status.replicas[0].memory_limited);  // diagnose must not read 137 as its kill
    state.memory_limit = "3Gi";
    CHECK(status_from_state(state, true).replicas[1].memory_limit_bytes ==
          3.0 * 1024 * 1024 * 1024);
    state.memory = state.memory_limit = "";
    CHECK_FALSE(status_from_state(state, true).replicas[0].memory_limit_bytes);
}

TEST_CASE("state.json keeps the resources, and older state has none to price", "[local]") {
    JobState state = running_state();
    state.cpu = "2";
    state.gpus = 1;
    state.node_selector = {{"nvidia.com/gpu.product", "NVIDIA-L4"}};
    auto doc = kftrain::backend::local::to_json(state);
    auto read = kftrain::backend::local::job_state_from_json(doc);
    REQUIRE(read);
    CHECK(read->cpu == "2");
    CHECK(read->gpus == 1);
    CHECK(read->node_selector == state.node_selector);
    CHECK(status_from_state(*read, true).requests.at(1).gpus == 1);

    doc.erase("resources");
    auto old = kftrain::backend::local::job_state_from_json(doc);
    REQUIRE(old);
    CHECK(status_from_state(*old, true).requests.empty());
}
