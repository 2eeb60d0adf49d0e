// --retries: the retry budget from the command line, as run, render and submit write it.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/text.h"

using kftrain::test::contains;
using kftrain::test::FakeCluster;
using kftrain::test::run_kftrain;
using nlohmann::json;

namespace {

const std::string k_print = "--print-job-file";

json render_items(const std::vector<std::string>& args) {
    auto run = run_kftrain(args);
    INFO(run.err);
    REQUIRE(run.code == 0);
    json out = json::parse(run.out);  // one document as it is, several as a List
    return out.contains("items") ? out["items"] : json::array({out});
}

}  // namespace

TEST_CASE("run gives every job a budget of 3 retries, --retries sets it", "[cli][retries]") {
    auto made = run_kftrain({"run", "--no-code", k_print, "--", "python3", "t.py"});
    REQUIRE(made.code == 0);
    CHECK(contains(made.out, "runPolicy:\n  backoffLimit: 4\n"));
    auto none =
        run_kftrain({"run", "--no-code", "--retries", "0", k_print, "--", "python3", "t.py"});
    CHECK(contains(none.out, "runPolicy:\n  backoffLimit: 0\n"));
    auto two =
        run_kftrain({"run", "--no-code", "--retries", "2", k_print, "--", "python3", "t.py"});
    CHECK(contains(two.out, "runPolicy:\n  backoffLimit: 3\n"));
    for (const char* bad : {"-1", "x", "2147483647"}) {
        INFO(bad);
        auto refused =
            run_kftrain({"run", "--no-code", "--retries", bad, k_print, "--", "python3", "t.py"});
        CHECK(refused.code == 2);
        CHECK(refused.out.empty());
        CHECK(contains(refused.err, "--retries"));
    }
}

TEST_CASE("submit and render take --retries over the job file's backoffLimit", "[cli][retries]") {
    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/job.yaml",
                              "name: a\nrunPolicy:\n  backoffLimit: 9\n  suspend: true\n");
    json items = render_items({"render", "-f", dir + "/job.yaml", "--retries", "1", "-o", "json"});
    CHECK(items[0]["spec"]["runPolicy"]["backoffLimit"] == 2);
    CHECK(items[0]["spec"]["runPolicy"]["suspend"] == true);
    auto dry = run_kftrain({"submit", "-f", dir + "/job.yaml", "--retries", "0", "--dry-run"});
    REQUIRE(dry.code == 0);
    CHECK(contains(dry.out, "backoffLimit: 0\n"));
    // A runPolicy that is not a map is named, not overwritten.
    kftrain::test::write_file(dir + "/odd.yaml", "name: a\nrunPolicy: 3\n");
    auto odd = run_kftrain({"render", "-f", dir + "/odd.yaml", "--retries", "1"});
    CHECK(odd.code == 2);
    CHECK(contains(odd.err, "runPolicy"));
}

TEST_CASE("render of a TrainJob with a budget gives the derived TrainingRuntime first",
          "[cli][retries]") {
    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/job.yaml", "name: a\nkind: TrainJob\nnamespace: team-a\n");
    json items = render_items({"render", "-f", dir + "/job.yaml", "--retries", "2", "-o", "json"});
    REQUIRE(items.size() == 2);
    CHECK(items[0]["kind"] == "TrainingRuntime");
    CHECK(items[0]["metadata"]["namespace"] == "team-a");
    CHECK(items[0]["spec"]["template"]["spec"]["failurePolicy"]["maxRestarts"] == 2);
    CHECK(items[1]["kind"] == "TrainJob");
    CHECK(items[1]["spec"]["runtimeRef"] == json{{"apiGroup", "trainer.kubeflow.org"},
                                                 {"kind", "TrainingRuntime"},
                                                 {"name", items[0]["metadata"]["name"]}});
    // Without a budget, the TrainJob refers to the runtime itself, as before.
    json plain = render_items({"render", "-f", dir + "/job.yaml", "-o", "json"});
    REQUIRE(plain.size() == 1);
    CHECK(plain[0]["spec"]["runtimeRef"]["name"] == "torch-distributed");
    // A runtime kftrain keeps no copy of: a note, and the TrainJob as it is.
    auto other = run_kftrain({"render", "-f", dir + "/job.yaml", "--retries", "1", "--set",
                              "runtime=torch-custom", "-o", "json"});
    REQUIRE(other.code == 0);
    CHECK(json::parse(other.out)["spec"]["runtimeRef"]["name"] == "torch-custom");
    CHECK(contains(other.err, "runtime torch-custom is not one kftrain keeps a copy of"));
}

TEST_CASE("submit derives a TrainJob's budget runtime from the cluster's and owns it",
          "[cluster][cli][retries]") {
    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/job.yaml",
                              "name: mnist-trainjob\nkind: TrainJob\nnamespace: ml-training\n");
    FakeCluster cluster("trainjob-budget");
    auto run = cluster.run({"submit", "-f", dir + "/job.yaml", "--retries", "1"});
    INFO(run.err);
    REQUIRE(run.code == 0);
    CHECK(run.out == "trainjob/mnist-trainjob submitted\n");
    const auto calls = cluster.calls();
    REQUIRE(calls.size() >= 5);  // the namespace's quotas first
    CHECK(calls[1] ==
          std::vector<std::string>{"get", "clustertrainingruntimes.trainer.kubeflow.org",
                                   "torch-distributed", "-o", "json", "--ignore-not-found"});
    const auto applied = cluster.applied();
    REQUIRE(applied.size() == 2);
    CHECK(contains(applied[0], "kind: TrainingRuntime\n"));
    CHECK(contains(applied[0], "maxRestarts: 1\n"));
    CHECK(contains(applied[1], "kind: TrainingRuntime\n    name: torch-distributed-"));
    const auto& last = calls.back();
    CHECK(last[0] == "patch");
    CHECK(last[1] == "trainingruntimes.trainer.kubeflow.org");

    // A runtime the cluster lacks: exit 3, and nothing applied.
    FakeCluster empty("runtimes-none");
    auto missing = empty.run({"submit", "-f", dir + "/job.yaml", "--retries", "1"});
    CHECK(missing.code == 3);
    CHECK(contains(missing.err,
                   "runtime torch-distributed: the cluster has no "
                   "ClusterTrainingRuntime of that name"));
    CHECK(empty.applied().empty());
}
