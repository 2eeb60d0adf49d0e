// Unit tests of the local backend's state handling: writes that fail, state.json read field
// by field, the per-name lock, the replicas' clean environment and status from what is seen
// of the processes.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <functional>

#include "backend/local/process/clean_env.h"
#include "backend/local/process/launch.h"
#include "backend/local/state/job_state.h"
#include "backend/local/state/name_lock.h"
#include "backend/local/state/state_dir.h"
#include "backend/local/status_convert.h"
#include "support/files.h"

using namespace kftrain;

namespace local = kftrain::backend::local;
namespace job = kftrain::job;

namespace {

backend::local::JobState two_replica_state() {
    backend::local::JobState state;
    state.name = "mnist";
    state.phase = "Running";
    state.supervisor_pid = 4242;
    state.supervisor_ticks = 7;
    for (const char* name : {"master-0", "worker-0"}) {
        backend::local::ReplicaState replica;
        replica.name = name;
        replica.type = name[0] == 'm' ? "Master" : "Worker";
        replica.state = "Running";
        replica.pid = name[0] == 'm' ? 100 : 101;
        replica.start_ticks = 9;
        replica.argv = {"/bin/trainer", "--mlflow", "http://ann:hunter2@mlflow:5000"};
        replica.env = {{"MLFLOW_TRACKING_URI", "https://ann:hunter2@mlflow/?token=t1"}};
        state.replicas.push_back(replica);
    }
    return state;
}

}  // namespace

TEST_CASE("a write to a full disk says which file and No space left on device", "[local]") {
    int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    auto written = util::write_all(fd, "{\"phase\": \"Succeeded\"}\n", "/jobs/mnist/state.json");
    ::close(fd);
    REQUIRE_FALSE(written.ok());
    CHECK(written.error() == "cannot write /jobs/mnist/state.json: No space left on device");
}

TEST_CASE("write_file_atomic leaves a private file and names the file it could not write",
          "[local]") {
    std::string dir = kftrain::test::make_temp_dir();
    REQUIRE(util::write_file_atomic(dir + "/state.json", "{}\n").ok());
    CHECK(*state::read_state_file(dir + "/state.json") == "{}\n");
    const auto perms = std::filesystem::status(dir + "/state.json").permissions();
    CHECK((perms & std::filesystem::perms::all) ==
          (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
    auto failed = util::write_file_atomic(dir + "/missing/state.json", "{}\n");
    REQUIRE_FALSE(failed.ok());
    CHECK(failed.error() ==
          "cannot write " + dir + "/missing/state.json: No such file or directory");
}

TEST_CASE("state.json is read field by field and a wrong field is named", "[local]") {
    auto doc = backend::local::to_json(two_replica_state());
    REQUIRE(backend::local::job_state_from_json(doc).ok());
    struct Case {
        const char* name;
        std::function<void(nlohmann::json&)> spoil;
        const char* error;
    };
    const Case cases[] = {
        {"pid a string", [](auto& d) { d["replicas"][1]["pid"] = "12x"; },
         "field 'replicas[1].pid' is not a number"},
        {"negative pid", [](auto& d) { d["replicas"][0]["pid"] = -5; },
         "field 'replicas[0].pid' is not a number >= 0"},
        {"no name", [](auto& d) { d.erase("name"); }, "field 'name' is missing"},
        {"replicas not a list", [](auto& d) { d["replicas"] = 3; },
         "field 'replicas' is not a list"},
        {"argv item", [](auto& d) { d["replicas"][0]["argv"][1] = 1; },
         "field 'replicas[0].argv[1]' is not a string"},
        {"env value", [](auto& d) { d["replicas"][1]["env"]["X"] = true; },
         "field 'replicas[1].env.X' is not a map of strings"},
        {"supervisor ticks", [](auto& d) { d["supervisor"]["start_ticks"] = "soon"; },
         "field 'supervisor.start_ticks' is not a number"},
        {"phase", [](auto& d) { d["phase"] = 1; }, "field 'phase' is not a string"},
        {"exit code past a byte", [](auto& d) { d["replicas"][0]["exit_code"] = 1LL << 40; },
         "field 'replicas[0].exit_code' is not an exit code from 0 to 255"},
        {"negative restarts", [](auto& d) { d["replicas"][0]["restarts"] = -5; },
         "field 'replicas[0].restarts' is not a number >= 0"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        nlohmann::json spoiled = doc;
        c.spoil(spoiled);
        auto read = backend::local::job_state_from_json(spoiled);
        REQUIRE_FALSE(read.ok());
        CHECK(read.error() == c.error);
    }
}

TEST_CASE("a second lock of a job name waits, then says another kftrain holds it", "[local]") {
    std::string dir = kftrain::test::make_temp_dir();
    ::setenv("XDG_STATE_HOME", dir.c_str(), 1);
    auto first = backend::local::NameLock::acquire("mnist", std::chrono::milliseconds(0));
    REQUIRE(first.ok());
    auto second = backend::local::NameLock::acquire("mnist", std::chrono::milliseconds(100));
    REQUIRE_FALSE(second.ok());
    CHECK(second.error_code(0) == 2);
    CHECK(second.error() ==
          "job mnist is being submitted or deleted by another kftrain (it holds " + dir +
              "/kftrain/jobs/.locks/mnist.lock); try again when it is done");
    CHECK(backend::local::NameLock::acquire("other", std::chrono::milliseconds(0)).ok());
    { auto released = std::move(*first); }
    CHECK(backend::local::NameLock::acquire("mnist", std::chrono::milliseconds(0)).ok());
}

TEST_CASE("a replica inherits only the allowlisted variables of the shell", "[local]") {
    const std::vector<std::string> shell = {
        "PATH=/usr/bin",           "HOME=/home/ann",
        "LC_ALL=C.UTF-8",          "TZ=UTC",
        "OMP_NUM_THREADS=4",       "MLFLOW_TRACKING_TOKEN=secret",
        "AWS_SECRET_ACCESS_KEY=k", "RANK=7",
        "XDG_STATE_HOME=/tmp/x",   "FAKE_USER_VAR=from-shell"};
    auto unset = backend::local::names_to_unset(shell, {{"FAKE_USER_VAR", "from-job"}});
    CHECK(unset == std::vector<std::string>{"MLFLOW_TRACKING_TOKEN", "AWS_SECRET_ACCESS_KEY",
                                            "RANK", "XDG_STATE_HOME"});
}

TEST_CASE("the launch keeps real values while state.json gets them masked", "[local]") {
    backend::local::JobState state = two_replica_state();
    auto launch = backend::local::split_launch(state, {{"FAKE_SECRET", "s3cr3t"}});
    REQUIRE(launch.size() == 2);
    CHECK(launch[1].argv[2] == "http://ann:hunter2@mlflow:5000");
    CHECK(launch[1].env.at("MLFLOW_TRACKING_URI") == "https://ann:hunter2@mlflow/?token=t1");
    CHECK(launch[1].env.at("FAKE_SECRET") == "s3cr3t");
    CHECK(state.replicas[1].argv[2] == "http://***@mlflow:5000");
    CHECK(state.replicas[1].env.at("MLFLOW_TRACKING_URI") == "https://***@mlflow/?token=***");
    CHECK(state.replicas[1].env.at("FAKE_SECRET") == "***");
}

TEST_CASE("with the supervisor gone, replicas seen running show Running", "[local]") {
    backend::local::Observed seen;
    seen.replica_alive = {false, true};
    auto status = backend::local::status_from_state(two_replica_state(), seen);
    CHECK(status.phase == job::JobPhase::Running);
    CHECK(status.reason == "SupervisorLost");
    CHECK(status.message ==
          "the supervisor (pid 4242) is gone; 1 of 2 replicas still run, "
          "unsupervised");
    CHECK(status.replicas[0].state == "Unknown");
    CHECK(status.replicas[1].state == "Running");
    CHECK(status.counts["Worker"].active == 1);

    seen.replica_alive = {false, false};
    auto gone = backend::local::status_from_state(two_replica_state(), seen);
    CHECK(gone.phase == job::JobPhase::Failed);
    CHECK(gone.reason == "SupervisorLost");
}

TEST_CASE("state.json with a repeated or negative replica index is refused, not merged",
          "[local]") {
    auto doc = backend::local::to_json(two_replica_state());
    doc["replicas"][1]["type"] = "Master";
    doc["replicas"][1]["index"] = 0;
    auto repeated = backend::local::job_state_from_json(doc);
    REQUIRE_FALSE(repeated.ok());
    CHECK(repeated.error() == "field 'replicas[1].index' is not an index of its own");
    doc["replicas"][1]["index"] = -2;
    auto negative = backend::local::job_state_from_json(doc);
    REQUIRE_FALSE(negative.ok());
    CHECK(negative.error() == "field 'replicas[1].index' is not a number >= 0");
    doc["replicas"][1]["index"] = "one";
    CHECK_FALSE(backend::local::job_state_from_json(doc).ok());
}

TEST_CASE("a job that ended unsaved shows the supervisor's last word, not SupervisorLost",
          "[local]") {
    backend::local::Observed seen;
    seen.last_word = backend::local::LastWord{"cannot write /j/state.json: No space left on device",
                                              "Succeeded",
                                              "PyTorchJobSucceeded",
                                              "every replica completed",
                                              "2026-11-23T05:00:00Z",
                                              ""};
    auto status = backend::local::status_from_state(two_replica_state(), seen);
    CHECK(status.phase == job::JobPhase::Succeeded);
    CHECK(status.reason == "PyTorchJobSucceeded");
    REQUIRE(status.diagnosis.size() == 1);
    CHECK(status.diagnosis[0] ==
          "kftrain could not save the job's end in its state: cannot write /j/state.json: No "
          "space left on device; the replicas show their state as last saved");

    seen.supervisor_alive = true;
    seen.last_word->phase.clear();
    auto running = backend::local::status_from_state(two_replica_state(), seen);
    CHECK(running.phase == job::JobPhase::Running);
    REQUIRE(running.diagnosis.size() == 1);
    CHECK(running.diagnosis[0].rfind("kftrain cannot save the job's state: cannot write", 0) == 0);
}

TEST_CASE("a state file past the state directory's limit is refused, not read", "[local]") {
    const std::string dir = kftrain::test::make_temp_dir();
    const std::string path = dir + "/state.json";
    // A sparse file: 16 MiB and one byte, with no blocks written.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, static_cast<off_t>(state::k_max_state_bytes + 1)) == 0);
    ::close(fd);
    auto read = state::read_state_file(path);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error() == path + ": larger than 16384 KiB");
    std::filesystem::remove_all(dir);
}
