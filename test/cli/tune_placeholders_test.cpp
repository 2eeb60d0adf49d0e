// A job file with Katib's ${trialParameters.NAME} placeholders: render and submit (both
// backends) refuse it with exit 2 and nothing submitted, unless --set trialParameters.NAME=VALUE
// fills each; tune takes it.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "support/cli_runner.h"
#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/test_data.h"
#include "tune/katib_checks.h"

using kftrain::test::contains;
using kftrain::test::FakeCluster;

namespace {

const std::string k_refusal =
    "kftrain: error: " + kftrain::test::k_tune_example_job +
    ":30: args[7]: ${trialParameters.lr}: only `kftrain tune` fills Katib's placeholders, each "
    "trial with its own value; to render, submit or measure this job, give it a value: --set "
    "trialParameters.lr=VALUE\n";

}  // namespace

TEST_CASE("render and submit refuse a job with placeholders: exit 2, nothing submitted",
          "[cli][render][submit][placeholders]") {
    FakeCluster cluster("created");
    const std::vector<std::vector<std::string>> cases = {
        {"render", "-f", kftrain::test::k_tune_example_job},
        {"render", "-f", kftrain::test::k_tune_example_job, "--kind", "TrainJob"},
        {"submit", "-f", kftrain::test::k_tune_example_job},
        {"submit", "-f", kftrain::test::k_tune_example_job, "--dry-run"},
        {"submit", "-f", kftrain::test::k_tune_example_job, "--local"},
    };
    for (const auto& args : cases) {
        INFO(args.back());
        auto run = cluster.run(args);
        CHECK(run.code == 2);
        CHECK(run.out.empty());
        CHECK(run.err == k_refusal);
    }
    CHECK(cluster.calls().empty());
}

TEST_CASE("render and submit take a placeholder job once --set trialParameters.lr=0.01 fills it",
          "[cli][render][submit][placeholders]") {
    FakeCluster cluster("created");
    auto rendered = cluster.run(
        {"render", "-f", kftrain::test::k_tune_example_job, "--set", "trialParameters.lr=0.01"});
    INFO(rendered.err);
    REQUIRE(rendered.code == 0);
    CHECK(contains(rendered.out, "- --lr\n"));
    CHECK(contains(rendered.out, "- \"0.01\"\n"));
    CHECK_FALSE(contains(rendered.out, "trialParameters"));

    auto submitted = cluster.run(
        {"submit", "-f", kftrain::test::k_tune_example_job, "--set", "trialParameters.lr=0.01"});
    INFO(submitted.err);
    REQUIRE(submitted.code == 0);
    const auto applied = cluster.applied();
    REQUIRE(applied.size() == 1);
    CHECK(applied[0] == rendered.out);

    auto unused = cluster.run({"render", "-f", kftrain::test::k_tune_example_job, "--set",
                               "trialParameters.lr=0.01", "--set", "trialParameters.momentum=0.9"});
    CHECK(unused.code == 2);
    CHECK(unused.err ==
          "kftrain: error: --set trialParameters.momentum=0.9: the job file uses no "
          "${trialParameters.momentum} in command, args or env (it uses "
          "${trialParameters.lr})\n");
}

TEST_CASE("tune takes a script's placeholders and refuses an undeclared or unused one",
          "[cli][tune][placeholders]") {
    auto dry_run =
        kftrain::test::run_kftrain({"tune", "-f", kftrain::test::k_tune_example_job, "--dry-run"});
    INFO(dry_run.err);
    REQUIRE(dry_run.code == 0);
    CHECK(contains(dry_run.out, "                      - ${trialParameters.lr}\n"));

    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/job.yaml",
                              "name: wd-search\ncommand: [python3, train.py]\n"
                              "args: [--lr, \"${trialParameters.lr}\", --wd, "
                              "\"${trialParameters.wd}\"]\n");
    struct Case {
        std::vector<std::string> args;
        std::string err;
    };
    const std::vector<Case> cases = {
        {{"--param", "lr=0.001:0.1:log"},
         "kftrain: error: " + dir +
             "/job.yaml:3: args[3]: ${trialParameters.wd} is not declared: add --param wd=SPACE "
             "(or tune.params.wd), SPACE MIN:MAX[:log][:step=S] or a list A,B,C\n"},
        {{"--param", "lr=0.001:0.1:log", "--param", "wd=0:0.1", "--param", "momentum=0.5:0.9"},
         "kftrain: error: --param momentum=0.5:0.9: the job file uses no "
         "${trialParameters.momentum} in command, args or env (it uses ${trialParameters.lr}, "
         "${trialParameters.wd}); a job with its own command is tuned through the placeholders "
         "it uses\n"},
        {{"--param", "lr=0.001:0.1:log", "--param", "wd=0:0.1", "--objective", "f1"},
         "kftrain: error: --objective: say whether to maximize or minimize f1: f1:maximize or "
         "f1:minimize\n"},
    };
    for (const auto& c : cases) {
        std::vector<std::string> args = {"tune", "-f", dir + "/job.yaml", "--local"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        INFO(c.args.back());
        auto run = kftrain::test::run_kftrain(args);
        CHECK(run.code == 2);
        CHECK(run.out.empty());
        CHECK(run.err == c.err);
    }
}

TEST_CASE("tune applies a script's Experiment with its placeholder left for Katib",
          "[cli][tune][search][cluster][placeholders]") {
    FakeCluster cluster("katib-running");
    auto run = cluster.run({"tune", "-f", kftrain::test::k_tune_example_job});
    INFO(run.err);
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "experiment.kubeflow.org/python-ddp-tune submitted\n"));
    const auto applied = cluster.applied();
    REQUIRE(applied.size() == 1);
    const YAML::Node sent = YAML::Load(applied[0]);
    CHECK(kftrain::tune::check_experiment(sent));
    CHECK(sent["spec"]["trialTemplate"]["trialParameters"][1]["reference"].as<std::string>() ==
          "lr");
    CHECK(contains(applied[0], "- ${trialParameters.lr}\n"));
}

TEST_CASE("tune refuses a placeholder both fixed by --set and tuned by --param",
          "[cli][tune][placeholders]") {
    FakeCluster cluster("created");
    auto run = cluster.run({"tune", "-f", kftrain::test::k_tune_example_job, "--set",
                            "trialParameters.lr=0.01", "--param", "lr=0.001:0.1:log", "--dry-run"});
    CHECK(run.code == 2);
    CHECK(run.err ==
          "kftrain: error: --param lr=0.001:0.1:log: --set trialParameters.lr=0.01 fixes "
          "${trialParameters.lr} for every trial; tune it (--param) or fix it (--set), not both\n");
    CHECK(cluster.calls().empty());
}
