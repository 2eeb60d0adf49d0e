// -f -: every verb that reads a job file takes it from standard input, as kubectl does, with
// the bounds of a file and messages that name <stdin>.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "load/job_input.h"
#include "support/cli_runner.h"
#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/test_data.h"
#include "util/subprocess.h"

using kftrain::test::contains;
using kftrain::test::run_kftrain;

TEST_CASE("render -f - prints what render -f FILE prints for the same job file", "[cli][stdin]") {
    for (const char* output : {"yaml", "json"}) {
        auto from_file = run_kftrain({"render", "-f", kftrain::test::k_example_job, "-o", output});
        auto from_stdin = run_kftrain({"render", "-f", "-", "-o", output}, {},
                                      kftrain::test::read_example("mnist-ddp.yaml"));
        INFO(from_stdin.err);
        REQUIRE(from_file.code == 0);
        CHECK(from_stdin.code == 0);
        CHECK(from_stdin.out == from_file.out);
    }
    // --set and --kind apply on top of standard input as on top of a file.
    auto changed = run_kftrain({"render", "-f", "-", "--set", "replicas=8", "--kind", "TrainJob"},
                               {}, kftrain::test::read_example("mnist-ddp.yaml"));
    CHECK(changed.code == 0);
    CHECK(contains(changed.out, "kind: TrainJob"));
    CHECK(contains(changed.out, "numNodes: 8"));
}

TEST_CASE("submit -f - applies the job read from standard input", "[cli][stdin]") {
    kftrain::test::FakeCluster cluster("submit-succeeds");
    auto run = run_kftrain({"submit", "-f", "-"}, cluster.env(),
                           kftrain::test::read_example("mnist-ddp.yaml"));
    INFO(run.err);
    CHECK(run.code == 0);
    CHECK(run.out == "pytorchjob/mnist-ddp submitted\n");
    auto applied = cluster.applied();
    REQUIRE(applied.size() == 1);
    CHECK(contains(applied[0], "name: mnist-ddp"));
}

TEST_CASE("estimate -f - and tune -f - read the job file from standard input", "[cli][stdin]") {
    auto estimate = run_kftrain({"estimate", "-f", "-", "--workers", "1,2", "-o", "json"}, {},
                                kftrain::test::read_example("mnist-ddp.yaml"));
    INFO(estimate.err);
    CHECK(estimate.code == 0);
    CHECK(contains(estimate.out, "\"job\": \"mnist-ddp\""));

    auto tune = run_kftrain({"tune", "-f", "-", "--param", "lr=0.001:0.1:log", "--dry-run"}, {},
                            kftrain::test::read_example("mnist-ddp.yaml"));
    INFO(tune.err);
    CHECK(tune.code == 0);
    CHECK(contains(tune.out, "kind: Experiment"));
}

TEST_CASE(
    "a job file from standard input (-f -) refuses an empty one and names <stdin> in job-file "
    "errors",
    "[cli][stdin]") {
    struct Case {
        const char* name;
        std::vector<std::string> args;
        std::string input;
        std::string err;
    };
    const std::string hint =
        "pipe the job file in (envsubst < job.yaml | kftrain submit -f -) or give its path";
    const std::vector<Case> cases = {
        {"nothing piped in",
         {"render", "-f", "-"},
         "",
         "kftrain: error: -f/--file: standard input is empty; " + hint + " (got -)\n"},
        {"nothing piped in to submit",
         {"submit", "-f", "-"},
         "",
         "kftrain: error: -f/--file: standard input is empty; " + hint + " (got -)\n"},
        {"an unknown key",
         {"render", "-f", "-"},
         "name: x\nreplica: 2\n",
         "kftrain: error: <stdin>:2: replica: unknown key (did you mean replicas?)\n"},
        {"invalid YAML", {"estimate", "-f", "-"}, "name: [x\n", ""},
        {"a template from standard input too",
         {"render", "-f", "-", "--template", "-"},
         "name: x\n",
         "kftrain: error: --template: standard input is read only by -f/--file; give a file "
         "(got -)\n"},
        {"a price catalog from standard input too",
         {"estimate", "-f", "-", "--prices", "-"},
         "name: x\n",
         "kftrain: error: --prices: standard input is read only by -f/--file; give a file "
         "(got -)\n"},
    };
    for (const auto& c : cases) {
        kftrain::test::FakeCluster cluster("submit-succeeds");
        auto run = run_kftrain(c.args, cluster.env(), c.input);
        INFO(c.name << ": " << run.err);
        CHECK(run.code == 2);
        CHECK(run.out.empty());
        if (c.err.empty()) {
            CHECK(run.err.rfind("kftrain: error: <stdin>:", 0) == 0);
            CHECK(contains(run.err, ": invalid YAML: "));
        } else {
            CHECK(run.err == c.err);
        }
        CHECK(cluster.calls().empty());
    }
}

TEST_CASE("a job file from standard input (-f -) refuses more than a job file may hold",
          "[cli][stdin]") {
    const std::string huge = "name: x\n# " + std::string(3 * 1024 * 1024, 'x') + "\n";
    auto run = run_kftrain({"render", "-f", "-"}, {}, huge);
    CHECK(run.code == 2);
    CHECK(run.err ==
          "kftrain: error: <stdin>: larger than 1024 KiB; kftrain reads job files, templates "
          "and catalogs of a few KiB\n");
}

TEST_CASE("reading a job file from a stream takes what a pipe holds and refuses a terminal",
          "[cli][stdin]") {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const std::string text = "name: piped\nreplicas: 2\n";
    REQUIRE(::write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    ::close(fds[1]);
    auto read = kftrain::load::read_job_stream(fds[0]);
    ::close(fds[0]);
    REQUIRE(read.ok());
    CHECK(*read == text);

    const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
    REQUIRE(master >= 0);
    REQUIRE(::grantpt(master) == 0);
    REQUIRE(::unlockpt(master) == 0);
    const int terminal = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
    REQUIRE(terminal >= 0);
    auto refused = kftrain::load::read_job_stream(terminal);
    ::close(terminal);
    ::close(master);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error() ==
          "-f/--file: standard input is a terminal; pipe the job file in (envsubst < job.yaml | "
          "kftrain submit -f -) or give its path (got -)");
}

TEST_CASE("A FIFO with no writer and a stdin that never ends are given up on, not waited for",
          "[cli][stdin]") {
    // Both run at once: each waits out kftrain's idle limit (30 s) once.
    const std::string fifo = kftrain::test::make_temp_dir() + "/job.yaml";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto start = [](std::vector<std::string> args, bool held_stdin) {
        kftrain::util::SpawnOptions spawn;
        spawn.argv = {kftrain::test::kftrain_binary()};
        spawn.argv.insert(spawn.argv.end(), args.begin(), args.end());
        spawn.stdin_from =
            held_stdin ? kftrain::util::Redirect::pipe() : kftrain::util::Redirect::null();
        spawn.stdout_to = kftrain::util::Redirect::null();
        spawn.stderr_to = kftrain::util::Redirect::pipe();
        auto started = kftrain::util::Process::spawn(spawn);
        REQUIRE(started);
        return std::move(*started);
    };
    auto from_fifo = start({"render", "-f", fifo}, false);
    auto from_stdin = start({"render", "-f", "-"}, true);  // its stdin stays open, empty
    for (auto* process : {&from_fifo, &from_stdin}) {
        std::string err;
        char buffer[4096];
        for (ssize_t n; (n = ::read(process->stderr_fd(), buffer, sizeof buffer)) > 0;) {
            err.append(buffer, static_cast<size_t>(n));
        }
        auto ended = process->wait();
        REQUIRE(ended);
        INFO(err);
        CHECK(ended->code == 2);
        CHECK(contains(err, "nothing came for 30 s: is anything writing to it, and does it end?"));
    }
}
