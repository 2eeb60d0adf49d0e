// XGBoostJob and JAXJob on a cluster, through the fake kubectl playing status JSON shaped as
// the Training Operator v1.9's xgboost and jax controllers write it: status, logs, wait,
// describe, list and delete find and read them as they do a PyTorchJob.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/fake_cluster.h"
#include "support/paths.h"

using kftrain::test::contains;
using kftrain::test::FakeCluster;

TEST_CASE("status of an XGBoostJob reads its Master and Workers and the Master's progress",
          "[cluster][cli][frameworks]") {
    FakeCluster cluster("xgboost-lifecycle");
    auto run = cluster.run({"status", "xgb-ddp", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(run.err == "");
    CHECK(contains(run.out, "Kind:       XGBoostJob\n"));
    CHECK(contains(run.out,
                   "State:      Running (XGBoostJobRunning): XGBoostJob xgb-ddp is running.\n"));
    CHECK(contains(run.out, "Replicas:   Master: 1 active; Worker: 2 active\n"));
    CHECK(contains(run.out, "Progress:   60% step 12/20 loss 0.2738"));
    CHECK(contains(run.out, "\nworker-1 "));
    // The job was found as an XGBoostJob in one get of every kind.
    auto calls = cluster.calls();
    REQUIRE_FALSE(calls.empty());
    CHECK(contains(nlohmann::json(calls.front()).dump(), "xgboostjobs.kubeflow.org"));
}

TEST_CASE("wait for an XGBoostJob ends when the Master succeeds, and logs prefix each replica",
          "[cluster][cli][frameworks]") {
    FakeCluster cluster("xgboost-lifecycle");
    auto wait = cluster.run({"wait", "xgb-ddp", "-n", "ml-training", "--timeout", "60s"});
    CHECK(wait.code == 0);
    CHECK(contains(wait.out + wait.err, "Succeeded"));
    auto logs = cluster.run({"logs", "xgb-ddp", "-n", "ml-training"});
    REQUIRE(logs.code == 0);
    CHECK(contains(logs.out, "master-0 | logloss=0.242676\n"));
    CHECK(contains(logs.out, "worker-1 | [10:00:21] task 2 got new rank 2\n"));
    // Each replica's log was read from its xgboost container.
    bool container = false;
    for (const auto& call : cluster.calls()) {
        if (!call.empty() && call.front() == "logs") {
            container = container || contains(nlohmann::json(call).dump(), "\"xgboost\"");
        }
    }
    CHECK(container);
}

TEST_CASE("a failed JAXJob reads Failed with the Worker that failed, and diagnose names it",
          "[cluster][cli][frameworks]") {
    FakeCluster cluster("jax-failed");
    auto status = cluster.run({"status", "jax-ddp", "-n", "ml-training"});
    REQUIRE(status.code == 0);
    CHECK(contains(status.out, "Kind:       JAXJob\n"));
    CHECK(contains(status.out,
                   "State:      Failed (JAXJobFailed): JAXJob jax-ddp is failed "
                   "because 1 Worker replica(s) failed.\n"));
    CHECK(contains(status.out, "Replicas:   Worker: 2 active, 1 failed\n"));
    auto diagnose = cluster.run({"diagnose", "jax-ddp", "-n", "ml-training"});
    CHECK(contains(diagnose.out, "worker-0"));
    CHECK(contains(diagnose.out, "ValueError: batch size 0"));
    auto wait = cluster.run({"wait", "jax-ddp", "-n", "ml-training", "--timeout", "30s"});
    CHECK(wait.code == 1);
}

TEST_CASE("delete removes an XGBoostJob through its own resource", "[cluster][cli][frameworks]") {
    FakeCluster cluster("xgboost-lifecycle");
    auto run = cluster.run({"delete", "xgb-ddp", "-n", "ml-training"});
    CHECK(run.code == 0);
    bool deleted = false;
    for (const auto& call : cluster.calls()) {
        deleted = deleted ||
                  (call.size() > 1 && call[0] == "delete" && call[1] == "xgboostjobs.kubeflow.org");
    }
    CHECK(deleted);
}

TEST_CASE("submit applies an XGBoostJob and names it by its kind", "[cluster][cli][frameworks]") {
    FakeCluster cluster("submit-succeeds");
    auto run =
        cluster.run({"submit", "-f",
                     std::string(kftrain::test::source_dir()) + "/examples/xgboost/xgboostjob.yaml",
                     "-n", "ml-training"});
    CHECK(run.code == 0);
    CHECK(contains(run.out + run.err, "xgboostjob/xgboost submitted"));
    REQUIRE(cluster.applied().size() == 1);
    CHECK(contains(cluster.applied().front(), "kind: XGBoostJob"));
}

TEST_CASE("status and logs of a TFJob read its Chief, PS and Workers",
          "[cluster][cli][frameworks]") {
    FakeCluster cluster("tf-running");
    auto run = cluster.run({"status", "tf-dist", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "Kind:       TFJob\n"));
    CHECK(contains(run.out, "State:      Running (TFJobRunning): TFJob tf-dist is running.\n"));
    CHECK(contains(run.out, "Chief: 1 active"));
    CHECK(contains(run.out, "PS: 1 active"));
    CHECK(contains(run.out, "Worker: 2 active"));
    CHECK(contains(run.out, "Progress:   26% epoch 2/5 step 30/100 loss 0.4123"));
    CHECK(contains(run.out, "\nps-0 "));
    auto logs = cluster.run({"logs", "tf-dist", "-n", "ml-training"});
    REQUIRE(logs.code == 0);
    CHECK(contains(logs.out, "ps-0     | ps 0 at tf-dist-ps-0.ml-training.svc:2222"));
    CHECK(contains(logs.out, "chief-0  | chief 0 at"));
}

TEST_CASE("a TrainJob on an MPI runtime reads its launcher: progress, logs and replicas",
          "[cluster][cli][frameworks]") {
    FakeCluster cluster("trainjob-mpi-running");
    auto run = cluster.run({"status", "ds-train", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "Kind:       TrainJob\n"));
    CHECK(contains(run.out, "\nlauncher "));
    // mpirun on the launcher prints rank 0's lines: the progress comes from there.
    CHECK(contains(run.out, "Progress:   25% epoch 1/2 step 50/100 loss 0.5512"));
    auto logs = cluster.run({"logs", "ds-train", "-n", "ml-training"});
    REQUIRE(logs.code == 0);
    CHECK(contains(logs.out, "launcher | [1,1]<stdout>:rank 1 of 2"));
    CHECK(contains(logs.out, "node-0   | Server listening on 0.0.0.0 port 2222.\n"));
}

TEST_CASE("describe reads each kind's replicas from its own pods", "[cluster][cli][frameworks]") {
    struct Case {
        const char* scenario;
        const char* job;
        std::vector<std::string> shown;
    };
    const Case cases[] = {
        {"xgboost-lifecycle", "xgb-ddp", {"Kind:       XGBoostJob\n", "master-0", "worker-1"}},
        {"tf-running", "tf-dist", {"Kind:       TFJob\n", "chief-0", "ps-0", "worker-1"}},
        {"jax-failed", "jax-ddp", {"Kind:       JAXJob\n", "worker-0", "worker-2"}},
    };
    for (const Case& c : cases) {
        INFO(c.scenario);
        FakeCluster cluster(c.scenario);
        auto run = cluster.run({"describe", c.job, "-n", "ml-training"});
        CHECK(run.code == 0);
        for (const auto& text : c.shown) {
            CHECK(contains(run.out, text));
        }
    }
}

TEST_CASE("suspend patches a TFJob's runPolicy and waits for its pods to go",
          "[cluster][cli][frameworks][lifecycle]") {
    FakeCluster cluster("suspend-tfjob");
    auto run = cluster.run({"suspend", "tf-dist", "-n", "ml-training", "--interval", "10ms"});
    CHECK(run.err == "");
    CHECK(run.code == 0);
    CHECK(run.out == "tfjob/tf-dist suspended\n");
    bool patched = false;
    for (const auto& call : cluster.calls()) {
        patched = patched || call == std::vector<std::string>{
                                         "patch",  "tfjobs.kubeflow.org",
                                         "--type", "merge",
                                         "-p",     R"({"spec":{"runPolicy":{"suspend":true}}})",
                                         "-n",     "ml-training",
                                         "--",     "tf-dist"};
    }
    CHECK(patched);
    auto status = cluster.run({"status", "tf-dist", "-n", "ml-training"});
    CHECK(contains(status.out, "State:      Suspended (TFJobSuspended)"));
}
