#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/files.h"
#include "support/test_data.h"
#include "support/text.h"

using kftrain::test::contains;
using kftrain::test::run_kftrain;

TEST_CASE("tune --dry-run prints the Experiment and runs nothing", "[cli][tune]") {
    auto run = run_kftrain(
        {"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.001:0.1:log", "--param",
         "momentum=0.5:0.95", "--param", "batchSize=32,64,128", "--objective", "accuracy:maximize",
         "--goal", "0.99", "--name", "mnist-tune", "--dry-run"},
        {{"KFTRAIN_KUBECTL", "/nonexistent/kubectl"}});
    CHECK(run.err.empty());
    REQUIRE(run.code == 0);
    CHECK(kftrain::test::matches_golden("mnist-tune-experiment.yaml", run.out));
}

TEST_CASE("tune with --kind TrainJob wraps a TrainJob", "[cli][tune]") {
    auto run = run_kftrain({"tune", "-f", kftrain::test::k_example_job, "--kind", "TrainJob",
                            "--param", "lr=0.001:0.1:log", "--dry-run"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "    primaryContainerName: node\n"));
    CHECK(contains(run.out, "      kind: TrainJob\n"));
}

TEST_CASE("tune of a job that ships code prints its ConfigMap, which every trial mounts",
          "[cli][tune][code]") {
    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/train.py", "print('accuracy=0.5')\n");
    kftrain::test::write_file(dir + "/job.yaml",
                              "name: coded\ncommand: [python3, train.py]\n"
                              "args: [--lr, \"${trialParameters.lr}\"]\ncode:\n  path: .\n");
    auto run =
        run_kftrain({"tune", "-f", dir + "/job.yaml", "--param", "lr=0.01:0.1", "--objective",
                     "accuracy:maximize", "--name", "coded-search", "--dry-run", "-o", "json"});
    INFO(run.err);
    REQUIRE(run.code == 0);
    const nlohmann::json list = nlohmann::json::parse(run.out);
    REQUIRE(list["kind"] == "List");
    REQUIRE(list["items"].size() == 2);
    const nlohmann::json& map = list["items"][0];
    CHECK(map["kind"] == "ConfigMap");
    const std::string name = map["metadata"]["name"];
    CHECK(name.rfind("coded-search.search-code-", 0) == 0);  // the search's, not one trial's
    CHECK(map["metadata"]["labels"]["kftrain.io/code-of"] == "coded-search");
    CHECK(map["metadata"]["labels"]["kftrain.io/code-for"] == "search");
    CHECK(map["data"]["train.py"] == "print('accuracy=0.5')\n");
    const nlohmann::json& experiment = list["items"][1];
    CHECK(experiment["kind"] == "Experiment");
    const nlohmann::json& pod = experiment["spec"]["trialTemplate"]["trialSpec"]["spec"]
                                          ["pytorchReplicaSpecs"]["Master"]["template"]["spec"];
    CHECK(pod["volumes"][0]["configMap"]["name"] == name);
    CHECK(pod["containers"][0]["workingDir"] == "/workspace");
}

TEST_CASE("bad tune input exits 2 naming the flag, and nothing starts", "[cli][tune]") {
    struct Case {
        std::vector<std::string> args;
        std::string message;
    };
    const std::vector<Case> cases = {
        {{"tune"},
         "kftrain: error: tune: -f/--file is required to start a search (or give status, logs "
         "or delete)\n"},
        {{"tune", "-f", kftrain::test::k_example_job},
         "kftrain: error: tune: nothing to search: give --param NAME=SPACE (e.g. --param "
         "lr=0.001:0.1:log) or tune.params in the job file\n"},
        {{"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.1:0.01"},
         "kftrain: error: --param lr=0.1:0.01: min 0.1 must be below max 0.01\n"},
        {{"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.01:0.1", "--max-trials", "2",
          "--parallel", "3", "--max-failed-trials", "1"},
         "kftrain: error: --parallel (tune.parallel) 3: must be at most --max-trials "
         "(tune.maxTrials) 2\n"},
        {{"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.01:0.1",
          "--dry-run=everything"},
         "kftrain: error: --dry-run: must be client or server (got everything)\n"},
        // An empty value (an unset variable in a script) is a mistake, not "unset".
        {{"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.01:0.1", "--algorithm", ""},
         "kftrain: error: --algorithm: must be one of random, grid, bayesianoptimization, tpe "
         "(got \"\")\n"},
        {{"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.01:0.1", "--objective", ""},
         "kftrain: error: --objective: must be metric[:maximize|minimize], e.g. "
         "accuracy:maximize (got \"\")\n"},
        {{"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.01:0.1", "--name", ""},
         "kftrain: error: --name: must be a search name, a DNS-1035 label (got \"\")\n"},
        {{"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.01:0.1", "--queue", ""},
         "kftrain: error: --queue: must name a LocalQueue (got \"\")\n"},
        {{"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.01:0.1", "--priority-class",
          ""},
         "kftrain: error: --priority-class: must name a WorkloadPriorityClass (got \"\")\n"},
        {{"submit", "-f", kftrain::test::k_example_job, "--queue", ""},
         "kftrain: error: --queue: must name a LocalQueue (got \"\")\n"},
        {{"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.01:0.1", "--env-from-shell",
          "1X"},
         "kftrain: error: --env-from-shell: must be a variable name: letters, digits and _ (got "
         "1X)\n"},
    };
    for (const auto& c : cases) {
        INFO(c.args.back());
        // A kubectl that cannot run shows nothing was tried.
        auto run = run_kftrain(c.args, {{"KFTRAIN_KUBECTL", "/nonexistent/kubectl"}});
        CHECK(run.code == 2);
        CHECK(run.out.empty());
        CHECK(run.err == c.message);
    }
}

TEST_CASE("tune's own flags after status, logs or delete are refused, and nothing is done",
          "[cli][tune]") {
    const std::string state = kftrain::test::make_temp_dir();
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"delete", {"tune", "delete", "s", "--dry-run"}},
        {"delete", {"tune", "delete", "s", "--local", "--dry-run"}},
        {"status", {"tune", "status", "s", "--max-trials", "0"}},
        {"logs", {"tune", "-f", kftrain::test::k_example_job, "logs", "s", "--trial", "1"}},
    };
    for (const auto& [subverb, args] : cases) {
        INFO(args.back());
        // Neither kubectl nor a local search is there: any attempt would exit 4 or 3, not 2.
        auto run = run_kftrain(
            args, {{"KFTRAIN_KUBECTL", "/nonexistent/kubectl"}, {"XDG_STATE_HOME", state}});
        CHECK(run.code == 2);
        CHECK(run.out.empty());
        CHECK(contains(run.err, "is a flag of tune itself (starting a search), not of tune " +
                                    subverb + "; nothing was done"));
    }
    auto run = run_kftrain({"tune", "delete", "s", "--dry-run"},
                           {{"KFTRAIN_KUBECTL", "/nonexistent/kubectl"}});
    CHECK(run.err ==
          "kftrain: error: tune delete: --dry-run is a flag of tune itself (starting a search), "
          "not of tune delete; nothing was done\n");
}

TEST_CASE("tune status of an unknown local search exits 3", "[cli][tune]") {
    const std::string state = kftrain::test::make_temp_dir();
    auto run =
        run_kftrain({"tune", "status", "nothing-here", "--local"}, {{"XDG_STATE_HOME", state}});
    CHECK(run.code == 3);
    CHECK(contains(run.err, "kftrain: error: search nothing-here not found on this machine"));
}

TEST_CASE("tune --local passes --env-from-shell to its trials and refuses an unset one",
          "[cli][tune]") {
    const std::string state = kftrain::test::make_temp_dir();
    auto run = run_kftrain({"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.01:0.1",
                            "--local", "--env-from-shell", "KFTRAIN_TEST_UNSET_VARIABLE"},
                           {{"XDG_STATE_HOME", state}});
    CHECK(run.code == 2);
    CHECK(run.out.empty());
    CHECK(run.err ==
          "kftrain: error: --env-from-shell: KFTRAIN_TEST_UNSET_VARIABLE is not set in this "
          "shell\n");
    auto help = run_kftrain({"tune", "--help"});
    CHECK(contains(help.out, "--env-from-shell"));  // the flag the local backend's note recommends
    CHECK(contains(help.out, "--replace"));
}
