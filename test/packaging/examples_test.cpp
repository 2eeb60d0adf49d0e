// examples/Makefile and examples/ci.sh as a user's project runs them: make with the built
// kftrain, the local targets for real (the fake replica standing in for the trainer), the
// cluster targets against the fake kubectl. A job that fails training fails the target.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "backend/local/local_fixture.h"
#include "manifest/load.h"
#include "support/cli_runner.h"
#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/paths.h"

using kftrain::test::CliRun;
using kftrain::test::contains;
using kftrain::test::FakeCluster;
using kftrain::test::LocalJobs;

namespace {

const std::string k_examples = std::string(kftrain::test::source_dir()) + "/examples";

// Run a program outside the make (or ctest) this test may run under: without its jobserver
// and flags.
CliRun run_outside_make(const std::vector<std::string>& argv,
                        std::map<std::string, std::string> env, const std::string& input = "") {
    env.insert({{"MAKEFLAGS", ""}, {"MAKELEVEL", ""}, {"MFLAGS", ""}});
    return kftrain::test::run_program(argv, input, env);
}

// Run `make -C examples TARGET... VAR=VALUE...` with the built kftrain.
CliRun make(const std::vector<std::string>& words,
            const std::map<std::string, std::string>& env = {}) {
    std::vector<std::string> argv = {"make", "--no-print-directory", "-C", k_examples,
                                     std::string("KFTRAIN=") + kftrain::test::kftrain_binary()};
    argv.insert(argv.end(), words.begin(), words.end());
    return run_outside_make(argv, env);
}

// Run examples/ci.sh with the built kftrain, polling the job every 10 ms.
CliRun ci(const std::vector<std::string>& args, std::map<std::string, std::string> env,
          const std::string& input = "") {
    env.insert({{"KFTRAIN", kftrain::test::kftrain_binary()}, {"WAIT_FLAGS", "--interval 10ms"}});
    std::vector<std::string> argv = {"bash", k_examples + "/ci.sh"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_outside_make(argv, env, input);
}

}  // namespace

TEST_CASE("make render prints the example's PyTorchJob, checked, and fails on a bad job file",
          "[examples]") {
    auto yaml = make({"render"});
    INFO(yaml.err);
    REQUIRE(yaml.code == 0);
    CHECK(contains(yaml.out, "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n"));
    CHECK(contains(yaml.out, "  name: mnist-ddp\n"));

    auto json = make({"render", "OUTPUT=json", "SET=--set replicas=8"});
    REQUIRE(json.code == 0);
    CHECK(contains(json.out, "\"replicas\": 7"));  // 1 Master + 7 Workers

    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/bad.yaml", "name: bad\nreplica: 2\n");
    auto bad = make({"render", "JOB=" + dir + "/bad.yaml"});
    CHECK(bad.code != 0);
    CHECK(contains(bad.err, "kftrain: error: " + dir +
                                "/bad.yaml:2: replica: unknown key (did you mean replicas?)\n"));
    CHECK(contains(bad.err, "render] Error 2"));  // kftrain's exit code 2 failed the target
}

TEST_CASE("make local runs a 2-replica job here and fails when training fails",
          "[examples][local]") {
    LocalJobs jobs;
    const std::string work = "WORK=" + jobs.dir() + "/work";
    auto ok_file = jobs.job_file("make-ok", 2, {"--steps", "2"});
    auto ok = make({"local", "LOCAL_JOB=" + ok_file, "LOCAL_DATA=", work});
    INFO(ok.out << ok.err);
    CHECK(ok.code == 0);
    CHECK(contains(ok.out, "job make-ok started (local)\n"));
    CHECK(contains(ok.out, "master-0 | "));
    CHECK(contains(ok.out, "worker-0 | "));
    CHECK(jobs.wait_finished("make-ok").phase == kftrain::job::JobPhase::Succeeded);
    CHECK(std::filesystem::is_directory(jobs.dir() + "/work"));

    auto bad_file = jobs.job_file("make-fails", 2, {"--fail-rank", "0"}, "restartPolicy: Never\n");
    auto bad = make({"local", "LOCAL_JOB=" + bad_file, "LOCAL_DATA=", work});
    INFO(bad.out << bad.err);
    CHECK(bad.code != 0);
    CHECK(contains(bad.err, "job make-fails Failed"));
    CHECK(contains(bad.err, "local] Error 1"));  // the job's exit code 1 failed the target
}

TEST_CASE("make estimate and make tune print the example's estimate and Katib Experiment",
          "[examples]") {
    auto estimate = make({"estimate", "ESTIMATE_FLAGS=--workers 1,2,4"});
    INFO(estimate.err);
    CHECK(estimate.code == 0);
    CHECK(contains(estimate.out, "mnist-ddp"));
    CHECK(contains(estimate.out, "REPLICAS"));

    auto tune = make({"tune"});
    INFO(tune.err);
    CHECK(tune.code == 0);
    CHECK(contains(tune.out, "apiVersion: kubeflow.org/v1beta1\nkind: Experiment\n"));
    CHECK(contains(tune.out, "name: lr"));
}

TEST_CASE("make submit, wait and logs drive the cluster through kubectl", "[examples][cluster]") {
    const std::vector<std::string> fast = {"WAIT_FLAGS=--interval 10ms"};
    FakeCluster good("wait-succeeds");
    auto submit = make({"submit"}, good.env());
    INFO(submit.err);
    CHECK(submit.code == 0);
    CHECK(contains(submit.out, "pytorchjob/mnist-ddp submitted\n"));
    REQUIRE(good.applied().size() == 1);
    CHECK(contains(good.applied()[0], "name: mnist-ddp"));

    auto wait = make({"wait", fast[0]}, good.env());
    INFO(wait.err);
    CHECK(wait.code == 0);
    CHECK(contains(wait.out, "pytorchjob/mnist-ddp: Succeeded"));

    auto logs = make({"logs"}, good.env());
    CHECK(logs.code == 0);
    CHECK(contains(logs.out, "master-0"));

    FakeCluster bad("wait-fails");
    auto failed = make({"wait", fast[0]}, bad.env());
    CHECK(failed.code != 0);
    CHECK(contains(failed.err, "kftrain: error: pytorchjob/mnist-ddp failed"));
    CHECK(contains(failed.err, "wait] Error 1"));
}

TEST_CASE("ci.sh renders, submits and waits, and fails the CI job with the job's exit code",
          "[examples][cluster]") {
    const std::string dir = kftrain::test::make_temp_dir();
    const std::string rendered = dir + "/rendered.yaml";

    FakeCluster good("wait-succeeds");
    auto env = good.env();
    env["RENDERED"] = rendered;
    auto ok = ci({}, env);
    INFO(ok.out << ok.err);
    CHECK(ok.code == 0);
    CHECK(contains(ok.out, "pytorchjob/mnist-ddp submitted\n"));
    auto manifest = kftrain::manifest::read_file(rendered);
    REQUIRE(manifest.ok());
    CHECK(contains(*manifest, "kind: PyTorchJob"));

    FakeCluster bad("wait-fails");
    env = bad.env();
    env["RENDERED"] = rendered;
    auto failed = ci({}, env);
    INFO(failed.out << failed.err);
    CHECK(failed.code == 1);
    CHECK(contains(failed.err, "pytorchjob/mnist-ddp did not succeed (exit code 1): its logs"));
    CHECK(contains(failed.out, "Loading MNIST from /data/mnist"));  // the master's log

    // A bad job file stops it before anything is submitted: exit 2.
    FakeCluster untouched("wait-succeeds");
    env = untouched.env();
    env["RENDERED"] = rendered;
    auto refused = ci({k_examples + "/mnist-ddp.yaml", "--set", "replicas=0"}, env);
    CHECK(refused.code == 2);
    CHECK(untouched.applied().empty());
}

TEST_CASE("ci.sh takes the job file from standard input with -", "[examples][cluster][stdin]") {
    auto text = kftrain::manifest::read_file(k_examples + "/mnist-ddp.yaml");
    REQUIRE(text.ok());
    FakeCluster good("wait-succeeds");
    auto env = good.env();
    env["RENDERED"] = kftrain::test::make_temp_dir() + "/rendered.yaml";
    auto run = ci({"-", "--set", "name=mnist-ddp"}, env, *text);
    INFO(run.out << run.err);
    CHECK(run.code == 0);
    REQUIRE(good.applied().size() == 1);
}
