// A local job that ships a folder (code): its replicas run in a copy made at submit.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>

#include "backend/local/local_fixture.h"
#include "backend/local/state/code_snapshot.h"
#include "support/files.h"
#include "support/paths.h"

using namespace kftrain;
namespace fs = std::filesystem;
using kftrain::test::LocalJobs;

TEST_CASE("a local job runs its code in a copy: an edit after submit does not reach it",
          "[local][code]") {
    LocalJobs jobs;
    const std::string proj = jobs.dir() + "/proj";
    const std::string go = jobs.dir() + "/go";
    fs::create_directories(proj + "/pkg");
    test::write_file(proj + "/config.txt", "lr=0.1\n");
    test::write_file(proj + "/pkg/run.sh", "while [ ! -e " + go +
                                               " ]; do sleep 0.05; done\n"
                                               "read line < config.txt; echo \"config $line\"\n");
    test::write_file(jobs.dir() + "/job.yaml",
                     "name: code-local\nreplicas: 2\ncommand: [sh, pkg/run.sh]\n"
                     "code:\n  path: proj\n");
    auto rendered = jobs.kftrain({"render", "-f", jobs.dir() + "/job.yaml", "-o", "json"});
    REQUIRE(rendered.code == 0);
    const std::string hash = nlohmann::json::parse(
        rendered.out)["items"][0]["metadata"]["annotations"]["kftrain.io/code-hash"];

    REQUIRE(jobs.kftrain({"submit", "-f", jobs.dir() + "/job.yaml", "--local"}).code == 0);
    test::write_file(proj + "/config.txt", "lr=0.5\n");  // after submit: not the job's
    test::write_file(go, "");
    CHECK(jobs.wait_finished("code-local").phase == job::JobPhase::Succeeded);
    auto lines = jobs.log_lines("code-local");
    std::sort(lines.begin(), lines.end());
    CHECK(lines ==
          std::vector<std::string>{"master-0 | config lr=0.1", "worker-0 | config lr=0.1"});

    auto describe = jobs.kftrain({"describe", "code-local", "--local"});
    REQUIRE(describe.code == 0);
    CHECK(describe.out.find("Code:") != std::string::npos);
    CHECK(describe.out.find(hash + " (2 files), copied at submit") != std::string::npos);
    CHECK(describe.out.find("/code-local/code\n") != std::string::npos);  // the working dir
}

TEST_CASE("kftrain run --local --follow runs a command with its folder and no job file",
          "[local][code]") {
    LocalJobs jobs;
    const std::string proj = jobs.dir() + "/proj";
    fs::create_directories(proj);
    test::write_file(proj + "/greet.sh", "echo \"hello from rank $RANK of $WORLD_SIZE\"\n");
    auto run = jobs.kftrain({"run", "--local", "--follow", "--no-progress", "--replicas", "2",
                             "--name", "greet", "--code", proj, "--", "sh", "greet.sh"});
    INFO(run.out << run.err);
    CHECK(run.code == 0);
    CHECK(run.out.find("hello from rank 0 of 2") != std::string::npos);
    CHECK(run.out.find("hello from rank 1 of 2") != std::string::npos);
    CHECK(jobs.status_json("greet")["state"] == "Succeeded");
    // Neither the default image nor the code volume kftrain adds is the user's to be told of.
    CHECK(run.err.find("does not apply") == std::string::npos);
    CHECK(run.err.find("do not apply") == std::string::npos);
}

TEST_CASE("estimate --measure measures a job that ships code in a copy of its folder",
          "[local][code][estimate]") {
    LocalJobs jobs;
    const std::string proj = jobs.dir() + "/proj";
    fs::create_directories(proj);
    // The program is found from the working directory, as python3 train.py finds train.py.
    test::write_file(proj + "/train.sh", std::string("exec ") + kftrain::test::fake_replica() +
                                             " --steps 20 --step-ms 30\n");
    test::write_file(jobs.dir() + "/job.yaml",
                     "name: measured\nreplicas: 2\nnprocPerNode: \"1\"\ncommand: [sh, train.sh]\n"
                     "code:\n  path: proj\n");
    auto run = jobs.kftrain({"--local", "estimate", "-f", jobs.dir() + "/job.yaml", "--measure",
                             "--measure-replicas", "1,2", "--measure-seconds", "30s"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    CHECK(run.out.find("measured running at 1 and 2 replicas") != std::string::npos);
    CHECK(kftrain::backend::local::job_names().empty());  // the measurement's jobs are gone
}

TEST_CASE("a local search's trials run the code as it was when the search started",
          "[local][code][search]") {
    LocalJobs jobs;
    const std::string proj = jobs.dir() + "/proj";
    fs::create_directories(proj);
    test::write_file(proj + "/config.txt", "first\n");
    // Each trial prints the config it finds where it runs, then edits the folder it was
    // shipped from: the next trial (one at a time) must not see the edit.
    test::write_file(proj + "/trial.sh",
                     "read line < config.txt\n"
                     "echo \"config $line lr $2\"\n"
                     "echo \"accuracy=$2\"\n"
                     "echo edited > " +
                         proj + "/config.txt\n");
    test::write_file(jobs.dir() + "/tune.yaml",
                     "name: shipped-search\nreplicas: 1\ncommand: [sh, trial.sh]\n"
                     "args: [--lr, \"${trialParameters.lr}\"]\ncode:\n  path: proj\n"
                     "tune:\n  params:\n    lr: 0.1:0.9\n  objective: accuracy:maximize\n"
                     "  maxTrials: 2\n  parallel: 1\n");
    auto run = jobs.kftrain({"tune", "-f", jobs.dir() + "/tune.yaml", "--local"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    for (const char* trial : {"shipped-search-1", "shipped-search-2"}) {
        INFO(trial);
        auto lines = jobs.log_lines(trial);
        REQUIRE_FALSE(lines.empty());
        CHECK(lines.front().rfind("master-0 | config first lr ", 0) == 0);
        auto describe = jobs.kftrain({"describe", trial, "--local"});
        CHECK(describe.out.find("(2 files), copied at submit") != std::string::npos);
    }
    CHECK(test::read_bytes(proj + "/config.txt") == "edited\n");  // the folder was edited
}

TEST_CASE("the local code copy is read-only, as a ConfigMap volume is, and kftrain removes it",
          "[local][code]") {
    const std::string job = test::make_temp_dir() + "/job";
    fs::create_directories(job);
    manifest::CodeBundle bundle;
    bundle.files = {{"pkg/run.sh", true, "#!/bin/sh\n"}, {"train.py", false, "print(1)\n"}};
    REQUIRE(backend::local::write_code_snapshot(job + "/code", bundle));
    const auto mode = [](const std::string& path) { return test::mode_of(path) & 07777; };
    // The modes, checked with stat: the tests may run as root, which writes whatever they say.
    CHECK(mode(job + "/code") == 0555);
    CHECK(mode(job + "/code/pkg") == 0555);
    CHECK(mode(job + "/code/pkg/run.sh") == 0555);
    CHECK(mode(job + "/code/train.py") == 0444);
    CHECK(test::read_bytes(job + "/code/train.py") == "print(1)\n");
    if (::geteuid() != 0) {  // a replica writing into its code folder
        CHECK(::open((job + "/code/train.py").c_str(), O_WRONLY | O_CLOEXEC) == -1);
        CHECK(errno == EACCES);
        CHECK(::open((job + "/code/new.txt").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644) == -1);
        CHECK(errno == EACCES);
    }
    REQUIRE(backend::local::remove_job_folder(job));
    CHECK_FALSE(fs::exists(job));
}
