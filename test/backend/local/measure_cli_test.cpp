// `kftrain estimate` of a job that runs its own program: refused without a measured profile,
// measured with --measure (the job's own command run here, through the local backend), the
// profile saved and reused by estimate and submit --max-cost, and nothing left running.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "backend/local/local_fixture.h"
#include "backend/local/state/state_dir.h"
#include "support/paths.h"
#include "support/test_data.h"
#include "util/process_info.h"
#include "util/subprocess.h"

using namespace kftrain::test;
using nlohmann::json;

namespace {

// A job whose program (the fake replica) reports its steps like any training script.
std::string program_job(LocalJobs& jobs, const std::string& name,
                        const std::vector<std::string>& args) {
    return jobs.job_file(name, 2, args, "nprocPerNode: \"1\"\nresources:\n  cpu: \"1\"\n");
}

// Return the names of the local jobs that exist.
std::vector<std::string> local_jobs() {
    return kftrain::backend::local::job_names();
}

}  // namespace

TEST_CASE("estimate refuses a job that runs its own program until it is measured",
          "[estimate][local]") {
    LocalJobs jobs;
    const std::string file = program_job(jobs, "own", {"--steps", "5"});
    auto run = jobs.kftrain({"estimate", "-f", file});
    INFO(run.err);
    CHECK(run.code == 2);
    CHECK_THAT(run.err, Catch::Contains("runs its own program") && Catch::Contains("--measure") &&
                            Catch::Contains("--profile FILE"));
    CHECK(run.out.empty());

    // submit --max-cost cannot price it either: exit 2 and nothing submitted.
    auto submit = jobs.kftrain({"submit", "-f", file, "--local", "--max-cost", "100"});
    INFO(submit.err);
    CHECK(submit.code == 2);
    CHECK_THAT(submit.err, Catch::Contains("--max-cost: job own runs its own program"));
    CHECK(local_jobs().empty());

    // A trainer --benchmark profile describes kftrain-trainer, not this program.
    const std::string trainer_profile = jobs.dir() + "/trainer.json";
    write_file(trainer_profile, read_test_data("estimate/profile.json"));
    auto wrong = jobs.kftrain({"estimate", "-f", file, "--profile", trainer_profile});
    CHECK(wrong.code == 2);
    CHECK_THAT(wrong.err, Catch::Contains("measured by kftrain-trainer --benchmark"));
}

TEST_CASE("estimate --measure runs the program at each size, saves its profile and predicts",
          "[estimate][local][cli]") {
    LocalJobs jobs;
    const std::string file = program_job(jobs, "own", {"--steps", "30", "--step-ms", "30"});
    const std::string out = jobs.dir() + "/own-profile.json";
    auto run = jobs.kftrain({"--local", "estimate", "-f", file, "--measure", "--measure-replicas",
                             "1,2", "--measure-seconds", "30s", "--profile-out", out});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    CHECK_THAT(run.out, Catch::Contains("its own program, measured running at 1 and 2 replicas"));
    CHECK_THAT(run.out, Catch::Contains("measured") && Catch::Contains("extrapolated"));
    CHECK_THAT(run.err, Catch::Contains("measuring own-measure-1") &&
                            Catch::Contains("measuring own-measure-2"));

    const json profile = json::parse(read_bytes(out));
    CHECK(profile["measured_from"] == "program");
    CHECK(profile["job"] == "own");
    REQUIRE(profile["sizes"].size() == 2);
    CHECK(profile["sizes"][0]["replicas"] == 1);
    CHECK(profile["sizes"][1]["replicas"] == 2);
    for (const auto& size : profile["sizes"]) {
        CHECK(size["basis"] == "steps");
        CHECK(size["finished"] == true);
        CHECK(size["reports"].get<int>() >= 2);
        CHECK(size["steps_per_run"] == 30);
        CHECK(size["training_s"].get<double>() > 0);
    }
    // The measurement's jobs are gone; the profile is saved beside the local state.
    CHECK(local_jobs().empty());
    const std::string saved = kftrain::backend::local::jobs_root() + "/../profiles/own.json";
    REQUIRE(std::filesystem::exists(saved));

    SECTION("a later estimate and submit --max-cost reuse the saved profile") {
        auto again = jobs.kftrain({"--local", "estimate", "-f", file, "-o", "json"});
        INFO(again.err);
        REQUIRE(again.code == 0);
        const json report = json::parse(again.out);
        CHECK(report["profile"]["measured_from"] == "program");
        CHECK_THAT(report["profile"]["source"].get<std::string>(),
                   Catch::EndsWith("profiles/own.json"));
        auto over = jobs.kftrain({"submit", "-f", file, "--local", "--max-cost", "0.00000001"});
        CHECK(over.code == 2);
        CHECK_THAT(over.err, Catch::Contains("more than the budget"));
        CHECK(local_jobs().empty());
    }
    SECTION("another program or settings make the saved profile stale: measure again") {
        auto changed = jobs.kftrain({"estimate", "-f", file, "--set", "args=[--steps,99]"});
        CHECK(changed.code == 2);
        CHECK_THAT(changed.err, Catch::Contains("--measure"));
    }
    SECTION("the written profile can be given with --profile") {
        auto given = jobs.kftrain({"--local", "estimate", "-f", file, "--profile", out});
        INFO(given.err);
        CHECK(given.code == 0);
        CHECK_THAT(given.out, Catch::Contains(out));
    }
}

// A program that reports only by posting trainerStatus (Kubeflow Trainer's contract, served
// locally by kftrain): 10% more every 0.3 s, printing nothing.
constexpr const char* k_posting_program = R"(import datetime, json, os, ssl, time, urllib.request
env = os.environ
context = ssl.create_default_context(cafile=env["KUBEFLOW_TRAINER_SERVER_CA_CERT"])
for percent in range(10, 101, 10):
    time.sleep(0.3)
    token = open(env["KUBEFLOW_TRAINER_SERVER_TOKEN"]).read().strip()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    body = {"trainerStatus": {"progressPercentage": percent, "lastUpdatedTime": now}}
    request = urllib.request.Request(env["KUBEFLOW_TRAINER_SERVER_URL"], method="POST",
        data=json.dumps(body).encode(), headers={"Content-Type": "application/json",
        "Authorization": "Bearer " + token})
    urllib.request.urlopen(request, timeout=5, context=context).read()
)";

TEST_CASE("estimate --measure reads a program that only posts trainerStatus",
          "[estimate][local][cli]") {
    LocalJobs jobs;
    const std::string script = jobs.dir() + "/post.py";
    write_file(script, k_posting_program);
    const std::string file = jobs.dir() + "/poster.yaml";
    write_file(file, "name: poster\nreplicas: 1\ncommand: [/usr/bin/python3, " + script + "]\n");
    const std::string out = jobs.dir() + "/poster.json";
    auto run = jobs.kftrain({"--local", "estimate", "-f", file, "--measure", "--measure-replicas",
                             "1", "--measure-seconds", "60s", "--profile-out", out});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    const json profile = json::parse(read_bytes(out));
    REQUIRE(profile["sizes"].size() == 1);
    CHECK(profile["sizes"][0]["basis"] == "percent");
    CHECK(profile["sizes"][0]["reports"].get<int>() >= 2);
    CHECK(profile["sizes"][0]["steps_per_run"].is_null());
    // Ten tenths 0.3 s apart: about 3 s of training, whatever the start-up.
    CHECK(profile["sizes"][0]["training_s"].get<double>() > 1.5);
    CHECK(profile["sizes"][0]["training_s"].get<double>() < 10);
    CHECK_THAT(run.out, Catch::Contains("not reported"));
}

TEST_CASE("estimate --measure measures on while a program's reports are too coarse to trust",
          "[estimate][local][cli]") {
    LocalJobs jobs;
    // Whole percentages, one every 0.3 s: in the 1 s asked for, 3 reports 1% apart.
    const std::string script = jobs.dir() + "/coarse.py";
    write_file(script,
               "import json, time\nfor percent in range(1, 41):\n    time.sleep(0.3)\n"
               "    print(json.dumps({'event': 'progress', 'percent': percent}), flush=True)\n");
    const std::string file = jobs.dir() + "/coarse.yaml";
    write_file(file, "name: coarse\nreplicas: 1\ncommand: [/usr/bin/python3, " + script + "]\n");
    const std::string out = jobs.dir() + "/coarse.json";
    auto run = jobs.kftrain({"--local", "estimate", "-f", file, "--measure", "--measure-replicas",
                             "1", "--measure-seconds", "1s", "--profile-out", out});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    CHECK_THAT(run.err, Catch::Contains("measuring coarse-measure-1 longer: its reports in 1s are "
                                        "too few to measure by (") &&
                            Catch::Contains("; 5 over 10 are needed); measuring on"));
    const json profile = json::parse(read_bytes(out));
    CHECK(profile["sizes"][0]["reports"].get<int>() >= 5);
    CHECK(profile["sizes"][0]["too_few"] == "");
    CHECK_THAT(run.out, !Catch::Contains("too few to trust"));
}

TEST_CASE("estimate --measure of a program that reports no progress exits 2 and says how",
          "[estimate][local][cli]") {
    LocalJobs jobs;
    const std::string file = jobs.dir() + "/quiet.yaml";
    write_file(file, "name: quiet\nreplicas: 1\ncommand: [/bin/sleep, \"60\"]\n");
    auto run = jobs.kftrain({"estimate", "-f", file, "--measure", "--measure-replicas", "1",
                             "--measure-seconds", "2s"});
    INFO(run.err);
    CHECK(run.code == 2);
    CHECK_THAT(run.err, Catch::Contains("--measure: quiet at 1 replica: it reported no progress") &&
                            Catch::Contains("progress lines") && Catch::Contains("trainerStatus"));
    CHECK(local_jobs().empty());
}

TEST_CASE("estimate --measure flags are checked before anything runs", "[estimate]") {
    LocalJobs jobs;
    const std::string file = program_job(jobs, "own", {"--steps", "5"});
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--measure", "--measure-replicas", "0"}, "--measure-replicas: must be"},
        {{"--measure", "--measure-replicas", "1,x"}, "--measure-replicas: must be"},
        {{"--measure", "--measure-replicas", ""}, "--measure-replicas: must name"},
        {{"--measure", "--measure-replicas", "65"}, "from 1 to 64"},
        {{"--measure", "--measure-seconds", "soon"}, "--measure-seconds: not a duration"},
        // A whole number is seconds (the flag is named so); a fraction needs its unit.
        {{"--measure", "--measure-seconds", "1.5"}, "(got 1.5; add a unit, as in 1.5s)"},
        {{"--measure", "--measure-seconds", "0"},
         "--measure-seconds: must be a duration from 1s to 24h (got 0)"},
        {{"--measure", "--measure-seconds", "0s"},
         "--measure-seconds: must be a duration from 1s to 24h (got 0s)"},
        {{"--measure-seconds", "30s"}, "--measure-seconds: needs --measure"},
        {{"--profile-out", "p.json"}, "--profile-out: needs --measure"},
        {{"--measure", "--profile", "p.json"}, "--profile: --measure makes the profile"},
    };
    const std::string placeholder = jobs.job_file("lr", 1, {"--lr", "${trialParameters.lr}"});
    auto unfilled = jobs.kftrain({"estimate", "-f", placeholder, "--measure"});
    CHECK(unfilled.code == 2);
    CHECK_THAT(unfilled.err, Catch::Contains("${trialParameters.lr}") &&
                                 Catch::Contains("--set trialParameters.lr=VALUE"));
    for (const auto& [flags, message] : cases) {
        std::vector<std::string> args = {"estimate", "-f", file};
        args.insert(args.end(), flags.begin(), flags.end());
        auto run = jobs.kftrain(args);
        INFO(args.back() << ": " << run.err);
        CHECK(run.code == 2);
        CHECK_THAT(run.err, Catch::Contains(message));
    }
    CHECK(local_jobs().empty());
}

TEST_CASE("Ctrl-C during estimate --measure exits 130 and leaves no process", "[estimate][local]") {
    LocalJobs jobs;
    const std::string pids = jobs.dir() + "/pids";
    std::filesystem::create_directories(pids);
    const std::string file =
        program_job(jobs, "held", {"--steps", "3", "--hold-rank", "-1", "--pid-dir", pids});
    kftrain::util::SpawnOptions options;
    options.argv = {kftrain::test::kftrain_binary(),
                    "estimate",
                    "-f",
                    file,
                    "--measure",
                    "--measure-seconds",
                    "5m"};
    options.env = {{"XDG_STATE_HOME", jobs.dir() + "/state"}};
    options.stdout_to = kftrain::util::Redirect::file(jobs.dir() + "/estimate.out");
    options.stderr_to = kftrain::util::Redirect::file(jobs.dir() + "/estimate.err");
    options.new_session = true;
    auto process = kftrain::util::Process::spawn(options);
    REQUIRE(process.ok());
    // Wait for its replica to run (it writes its pid file), then Ctrl-C.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::filesystem::is_empty(pids)) {
        REQUIRE(std::chrono::steady_clock::now() < deadline);
        REQUIRE_FALSE(process->try_wait());
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    process->signal(SIGINT);
    std::optional<kftrain::util::ExitStatus> ended;
    while (!(ended = process->try_wait())) {
        REQUIRE(std::chrono::steady_clock::now() < deadline);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    INFO(read_bytes(jobs.dir() + "/estimate.err"));
    CHECK(ended->code == 130);
    CHECK_THAT(read_bytes(jobs.dir() + "/estimate.err"), Catch::Contains("stopped by"));
    for (const auto& entry : std::filesystem::directory_iterator(pids)) {
        const auto pid = static_cast<pid_t>(std::stoll(entry.path().stem().string()));
        INFO("replica pid " << pid);
        // Gone, or a zombie its reaper has not yet collected.
        const auto gone = [&] { return !kftrain::util::process_alive(pid); };
        while (!gone() && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        CHECK(gone());
    }
    CHECK(local_jobs().empty());
    CHECK_FALSE(
        std::filesystem::exists(kftrain::backend::local::jobs_root() + "/../profiles/held.json"));
}
