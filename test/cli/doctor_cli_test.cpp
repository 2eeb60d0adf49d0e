// kftrain doctor --local as a user runs it: this machine's checks, a Python job's torch, the
// exit code, -o json, and bad input.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/files.h"
#include "support/jobs.h"
#include "support/json_items.h"

using kftrain::test::run_kftrain;
using nlohmann::json;

namespace {

struct DoctorFixture {
    std::string dir = kftrain::test::make_temp_dir();
    std::map<std::string, std::string> env = {{"XDG_STATE_HOME", dir + "/state"}};

    kftrain::test::CliRun doctor(std::vector<std::string> args) {
        args.insert(args.begin(), {"doctor", "--local"});
        return run_kftrain(args, env);
    }
};

json check_named(const json& report, const std::string& name) {
    return kftrain::test::item_named(report["checks"], name);
}

}  // namespace

TEST_CASE("doctor --local checks this machine and passes where jobs can run", "[cli][doctor]") {
    DoctorFixture f;
    auto run = f.doctor({});
    INFO(run.out << run.err);
    CHECK(run.code == 0);
    CHECK(run.out.rfind("GROUP  CHECK", 0) == 0);
    CHECK(run.out.find("state directory") != std::string::npos);
    CHECK(run.out.find("\nready: jobs can run on this machine\n") != std::string::npos);
    const json report = json::parse(f.doctor({"-o", "json"}).out);
    CHECK(report["passed"] == true);
    CHECK(check_named(report, "state directory")["state"] == "ok");
    CHECK(check_named(report, "free ports")["state"] == "ok");
    CHECK(check_named(report, "kftrain-trainer")["needed"] == false);  // no job asks for it
}

TEST_CASE(
    "doctor --local -f: a Python job whose script imports torch needs an interpreter "
    "that has it",
    "[cli][doctor]") {
    DoctorFixture f;
    kftrain::test::write_file(f.dir + "/train.py", "import os\nimport torch\n");
    // A python3 without torch, as a user's virtualenv or pyenv may be.
    std::filesystem::create_directories(f.dir + "/bin");
    const std::string python = f.dir + "/bin/python3";
    kftrain::test::write_file(python,
                              "#!/bin/sh\necho \"Traceback (most recent call last):\" >&2\n"
                              "echo \"ModuleNotFoundError: No module named 'torch'\" >&2\n"
                              "exit 1\n");
    ::chmod(python.c_str(), 0755);
    kftrain::test::write_file(f.dir + "/job.yaml",
                              "name: py\nreplicas: 2\ncommand: [" + python + ", train.py]\n");
    auto run = f.doctor({"-f", f.dir + "/job.yaml"});
    INFO(run.out << run.err);
    CHECK(run.code == 1);
    CHECK(run.out.find("ModuleNotFoundError: No module named 'torch'") != std::string::npos);
    CHECK(run.out.find("fix: apt-get install python3-torch") != std::string::npos);
    CHECK(run.out.find("\nsubmit would not run: local torch in " + python + " missing\n") !=
          std::string::npos);
    // A script that does not import torch does not need it.
    kftrain::test::write_file(f.dir + "/train.py", "print('no torch here')\n");
    const json report = json::parse(f.doctor({"-f", f.dir + "/job.yaml", "-o", "json"}).out);
    CHECK(check_named(report, "torch in " + python)["needed"] == false);
    CHECK(report["passed"] == true);
}

TEST_CASE("doctor --local -f: a launcher whose Python lacks torch fails for a script that needs it",
          "[cli][doctor]") {
    DoctorFixture f;
    kftrain::test::write_file(f.dir + "/train.py", "import os, torch\n");
    std::filesystem::create_directories(f.dir + "/bin");
    const std::string python = f.dir + "/bin/python3";
    kftrain::test::write_file(
        python,
        "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'torch'\" >&2\n"
        "exit 1\n");
    ::chmod(python.c_str(), 0755);
    // torchrun as pip installs it: a script whose shebang names the environment's python.
    const std::string launcher = f.dir + "/bin/torchrun";
    kftrain::test::write_file(launcher, "#!" + python + "\nimport sys\n");
    ::chmod(launcher.c_str(), 0755);
    kftrain::test::write_file(f.dir + "/job.yaml",
                              "name: py\nreplicas: 2\ncommand: [" + launcher + ", train.py]\n");
    auto run = f.doctor({"-f", f.dir + "/job.yaml"});
    INFO(run.out << run.err);
    CHECK(run.code == 1);
    CHECK(run.out.find("\nsubmit would not run: local torch in " + python + " missing\n") !=
          std::string::npos);
    CHECK(run.out.find("missing (optional)") == std::string::npos);
}

TEST_CASE("doctor --local -f: more than this machine holds is a warning, not a failure",
          "[cli][doctor]") {
    DoctorFixture f;
    kftrain::test::write_file(f.dir + "/job.yaml",
                              "name: big\nreplicas: 64\ncommand: [\"true\"]\n"
                              "resources: {cpu: \"64\", memory: 1Gi}\n");
    const json report = json::parse(f.doctor({"-f", f.dir + "/job.yaml", "-o", "json"}).out);
    const json fit = check_named(report, "fits on this machine");
    CHECK(fit["state"] == "warning");
    CHECK(fit["found"].get<std::string>().rfind("64 replicas ask 4096 CPUs and 64.0 GiB in all",
                                                0) == 0);
    CHECK(report["passed"] == true);
    CHECK(report["verdict"] == "ready: submit --local would start its replicas on this machine");
}

TEST_CASE("doctor's bad input exits 2 and checks nothing", "[cli][doctor]") {
    DoctorFixture f;
    kftrain::test::write_file(f.dir + "/bad.yaml", "name: Bad_Name\n");
    auto bad_job = f.doctor({"-f", f.dir + "/bad.yaml"});
    CHECK(bad_job.code == 2);
    CHECK(bad_job.out.empty());
    CHECK(bad_job.err.find("Bad_Name") != std::string::npos);
    auto bad_output = f.doctor({"-o", "xml"});
    CHECK(bad_output.code == 2);
    CHECK(bad_output.out.empty());
    CHECK(bad_output.err.find("xml") != std::string::npos);
}

TEST_CASE("doctor --local -f fails a job whose memory limit is under its measured peak",
          "[cli][doctor][sizing]") {
    DoctorFixture f;
    const std::string text = "name: sized\ncommand: [sleep, \"1\"]\nresources: {memory: 128Mi}\n";
    const std::string file = f.dir + "/job.yaml";
    kftrain::test::write_file(file, text);
    auto unmeasured = f.doctor({"-f", file, "-o", "json"});
    INFO(unmeasured.out << unmeasured.err);
    CHECK(unmeasured.code == 0);
    const json never = check_named(json::parse(unmeasured.out), "measured use");
    CHECK(never["state"] == "skipped");
    CHECK(never["needed"] == false);
    CHECK_THAT(never["found"].get<std::string>(),
               Catch::StartsWith("not measured: kftrain estimate --measure"));

    const std::string profile = kftrain::test::save_measured_use(
        f.dir + "/state", kftrain::test::load_job(text), 312, false);
    auto run = f.doctor({"-f", file, "-o", "json"});
    INFO(run.out << run.err);
    CHECK(run.code == 1);
    const json report = json::parse(run.out);
    CHECK(report["verdict"] == "submit would not run: job measured use failed");
    const json oom = check_named(report, "measured use");
    CHECK(oom["state"] == "failed");
    CHECK(oom["needed"] == true);
    CHECK(oom["found"] ==
          "will be OOMKilled: peak 312Mi measured at 2 replicas > limit 128Mi; ask for 375Mi "
          "(resources.memory); measured 2026-12-06 (" +
              profile + ")");
    CHECK_THAT(oom["fix"].get<std::string>(), Catch::StartsWith("set resources.memory to 375Mi"));
    CHECK(f.doctor({"-f", file}).code == 1);  // the table too
}

TEST_CASE("doctor --local -f warns of memory asked far over the measured peak, and passes",
          "[cli][doctor][sizing]") {
    DoctorFixture f;
    const std::string file = f.dir + "/job.yaml";
    kftrain::test::write_file(file,
                              "name: sized\ncommand: [sleep, \"1\"]\n"
                              "resources: {memory: 16Gi}\n");
    kftrain::test::save_measured_use(
        f.dir + "/state", kftrain::test::load_job("name: sized\ncommand: [sleep, \"1\"]\n"), 312,
        false);
    auto run = f.doctor({"-f", file, "-o", "json"});
    INFO(run.out << run.err);
    CHECK(run.code == 0);
    const json waste = check_named(json::parse(run.out), "measured use");
    CHECK(waste["state"] == "warning");
    CHECK(waste["needed"] == false);
    CHECK_THAT(waste["found"].get<std::string>(),
               Catch::StartsWith("requests 16Gi of memory, where the peak measured is 312Mi"));
    // Resources that hold the peak: ok.
    kftrain::test::write_file(file,
                              "name: sized\ncommand: [sleep, \"1\"]\n"
                              "resources: {memory: 512Mi}\n");
    const json fits =
        check_named(json::parse(f.doctor({"-f", file, "-o", "json"}).out), "measured use");
    CHECK(fits["state"] == "ok");
    CHECK_THAT(fits["found"].get<std::string>(),
               Catch::StartsWith("its resources hold what it used: memory 375Mi (peak 312Mi"));
}
