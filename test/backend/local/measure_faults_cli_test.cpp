// `kftrain estimate --measure` against programs and paths that would do harm: lines that
// overflow or nest without end, clocks that lie, a crash, secrets and escapes in what it
// quotes, a --profile-out that is not a profile, and names too long for a size.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/local/local_fixture.h"
#include "backend/local/state/state_dir.h"

using namespace kftrain::test;
using nlohmann::json;

namespace {

// Write a job whose one replica runs a Python program and return the job file's path.
std::string python_job(LocalJobs& jobs, const std::string& name, const std::string& program,
                       const std::string& extra = "") {
    const std::string script = jobs.dir() + "/" + name + ".py";
    write_file(script, program);
    const std::string path = jobs.dir() + "/" + name + ".yaml";
    write_file(path, "name: " + name + "\nreplicas: 1\ncommand: [/usr/bin/python3, \"" + script +
                         "\"]\n" + extra);
    return path;
}

// A program that reports 20 steps: first the lines no program should print, then steps
// stamped with a clock far from the machine's.
const char* k_hostile_reporter = R"(import json, sys, time
print(json.dumps({"event": "progress", "global_step": 1, "steps_per_epoch": 2**62, "epochs": 8}))
print('{"event":"progress","global_step":1,"time":' + '[' * 10000 + ']' * 10000 + '}')
print(json.dumps({"event": "progress", "epoch": -2**31, "step": 1, "steps_per_epoch": 20,
                  "epochs": 1, "time": "2000-01-01T00:00:00Z"}))
sys.stdout.flush()
for step in range(1, 21):
    time.sleep(0.05)
    print(json.dumps({"event": "progress", "global_step": step, "steps_per_epoch": 20,
                      "epochs": 1, "samples_per_sec": 1e308,
                      "time": "2099-01-01T00:00:%02dZ" % step}), flush=True)
)";

}  // namespace

TEST_CASE("A measured program's impossible lines and wrong clock give a sound profile",
          "[estimate][local][cli]") {
    LocalJobs jobs;
    const std::string file =
        python_job(jobs, "liar", k_hostile_reporter,
                   "args: [\"http://bob:pw5@db/x?token=abc\", \"\\e]0;title\\a\\e[2J\"]\n");
    auto run = jobs.kftrain({"--local", "estimate", "-f", file, "--measure", "--measure-replicas",
                             "1", "--measure-seconds", "30s"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    const json profile =
        json::parse(read_bytes(kftrain::backend::local::jobs_root() + "/../profiles/liar.json"));
    const json& size = profile["sizes"][0];
    // Read times stand in for the program's: the run took seconds, not 1999 or 2099 years.
    CHECK(size["training_s"].get<double>() > 0);
    CHECK(size["training_s"].get<double>() < 60);
    CHECK(size["startup_s"].get<double>() >= 0);
    CHECK(size["startup_s"].get<double>() < 60);
    CHECK(size["samples_per_sec"].is_null());  // 1e308 samples/s is no speed
    // The command line is kept and shown with its credentials masked and its escapes as text.
    const std::string program = profile["program"];
    CHECK_THAT(program, Catch::Contains("http://***@db/x?token=***"));
    CHECK_THAT(run.out + run.err, !Catch::Contains("pw5") && !Catch::Contains("abc"));
    CHECK_THAT(run.out, Catch::Contains("\\x1b]0;title\\x07\\x1b[2J"));
    CHECK(run.out.find('\x1b') == std::string::npos);
}

TEST_CASE("A program that crashes fails its measurement with its last lines, secrets masked",
          "[estimate][local][cli]") {
    LocalJobs jobs;
    // Left to the job's default restart policy it would be restarted until the time is up.
    const std::string file = python_job(jobs, "crash",
                                        "print('connecting to http://alice:hunter2@db/ with "
                                        "password=hunter2', flush=True)\nraise SystemExit(3)\n");
    auto run = jobs.kftrain({"--local", "estimate", "-f", file, "--measure", "--measure-replicas",
                             "1", "--measure-seconds", "60s"});
    INFO(run.err);
    CHECK(run.code == 1);
    CHECK_THAT(run.err, Catch::Contains("crash failed at 1 replica before it could be measured") &&
                            Catch::Contains("its last lines") &&
                            Catch::Contains("http://***@db/ with password=***"));
    CHECK_THAT(run.err, !Catch::Contains("hunter2"));
    CHECK(kftrain::backend::local::job_names().empty());
}

TEST_CASE("A --profile-out that is not a profile is never replaced, checked before measuring",
          "[estimate][local]") {
    LocalJobs jobs;
    const std::string file = python_job(jobs, "own", "import time\ntime.sleep(60)\n");
    const std::string dir = jobs.dir();
    REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
    std::filesystem::create_directory(dir + "/folder");
    write_file(dir + "/notes.txt", "my notes\n");
    std::filesystem::create_symlink(dir + "/notes.txt", dir + "/link.json");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {dir + "/fifo", "is not a regular file"},
        {dir + "/folder", "is not a regular file"},
        {dir + "/link.json", "is a symbolic link"},
        {dir + "/notes.txt", "is not a profile kftrain wrote"},
        {dir + "/missing/p.json", "is not a directory"},
    };
    for (const auto& [path, message] : cases) {
        auto run = jobs.kftrain({"estimate", "-f", file, "--measure", "--profile-out", path});
        INFO(path << ": " << run.err);
        CHECK(run.code == 2);
        CHECK_THAT(run.err, Catch::Contains("--profile-out: ") && Catch::Contains(message) &&
                                Catch::Contains(path));
        CHECK_THAT(run.err, !Catch::Contains("measuring"));
    }
    CHECK(read_bytes(dir + "/notes.txt") == "my notes\n");
    CHECK(kftrain::backend::local::job_names().empty());
}

TEST_CASE("A job name too long for one of the sizes measured is refused before any runs",
          "[estimate][local]") {
    LocalJobs jobs;
    const std::string name(53, 'a');  // <name>-measure-10 would pass 63 characters
    const std::string file = python_job(jobs, name, "import time\ntime.sleep(60)\n");
    auto run = jobs.kftrain({"estimate", "-f", file, "--measure", "--measure-replicas", "1,10"});
    INFO(run.err);
    CHECK(run.code == 2);
    CHECK_THAT(run.err, Catch::Contains("--measure: at 10 replicas the job runs as " + name +
                                        "-measure-10, longer than the 63 characters") &&
                            Catch::Contains("at most 52 characters"));
    CHECK_THAT(run.err, !Catch::Contains("measuring"));
    CHECK(kftrain::backend::local::job_names().empty());
}
