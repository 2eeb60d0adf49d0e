#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/fake_cluster.h"
#include "support/paths.h"

using kftrain::test::contains;
using kftrain::test::FakeCluster;

namespace {

using Argv = std::vector<std::string>;

const char* const k_every_kind = kftrain::test::k_job_resources;

}  // namespace

TEST_CASE("status of a running TrainJob shows its nodes and node-0's progress",
          "[cluster][cli][trainjob]") {
    FakeCluster cluster("trainjob-running");
    auto run = cluster.run({"status", "mnist-trainjob", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(run.err == "");
    CHECK(run.out.rfind("Name:       mnist-trainjob\n"
                        "Kind:       TrainJob\n"
                        "Namespace:  ml-training\n"
                        "Backend:    kubernetes\n"
                        "State:      Running\n",
                        0) == 0);
    CHECK(contains(run.out, "Replicas:   Node: 2 active\n"));
    CHECK(contains(run.out, " so far: 2 replicas x $0.0802/h each (2 cores, 4 GiB)"));
    CHECK(contains(run.out,
                   "Progress:   epoch 2/3 step 120/469 loss 0.3121 acc 91.2% 1234 samples/s "
                   "ETA 1m40s\n"));
    CHECK(contains(run.out,
                   "\nREPLICA  STATE    RESTARTS  REASON\n"
                   "node-0   Running  0\n"
                   "node-1   Running  0\n"));
    // Three calls, as for a PyTorchJob: find it, its pods, node-0's log.
    CHECK(cluster.calls() ==
          std::vector<Argv>{{"get", k_every_kind, "-o", "json", "--ignore-not-found", "-n",
                             "ml-training", "--", "mnist-trainjob"},
                            {"get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=mnist-trainjob",
                             "-o", "json", "-n", "ml-training"},
                            {"logs", "mnist-trainjob-node-0-0-x7k2p", "-c", "node", "--tail=50",
                             "-n", "ml-training"}});
}

TEST_CASE("status shows each phase of a TrainJob, and a resumed one as running",
          "[cluster][cli][trainjob]") {
    struct Case {
        const char* scenario;
        const char* state;
    };
    const Case cases[] = {
        {"trainjob-complete",
         "State:      Succeeded (AllJobsCompleted): jobset completed successfully\n"},
        {"trainjob-deadline",
         "State:      Failed (DeadlineExceeded): TrainJob exceeded its active deadline\n"},
        {"trainjob-suspended", "State:      Suspended (Suspended): TrainJob is suspended\n"},
        {"trainjob-resumed", "State:      Running\n"},
        {"trainjob-unschedulable", "State:      Created\n"},
        {"trainjob-initializer", "State:      Running\n"},
    };
    for (const auto& c : cases) {
        SECTION(c.scenario) {
            FakeCluster cluster(c.scenario);
            auto run = cluster.run({"status", "mnist-trainjob", "-n", "ml-training"});
            CHECK(run.code == 0);
            CHECK(run.err == "");
            CHECK(contains(run.out, c.state));
        }
    }
}

TEST_CASE("status explains a pending TrainJob node by node", "[cluster][cli][trainjob]") {
    FakeCluster pending("trainjob-unschedulable");
    auto run = pending.run({"status", "mnist-trainjob", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    const std::string why =
        "Unschedulable: 0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are "
        "available: 3 No preemption victims found for incoming pod.\n";
    CHECK(contains(run.out, "Diagnosis:  node-0: " + why + "            node-1: " + why));
    CHECK(contains(run.out, "node-1   Pending  0         Unschedulable\n"));
    FakeCluster crashing("trainjob-crashloop");
    auto crash = crashing.run({"status", "mnist-trainjob", "-n", "ml-training", "-o", "wide"});
    REQUIRE(crash.code == 0);
    CHECK(contains(crash.out,
                   "Diagnosis:  node-1: CrashLoopBackOff: the container keeps crashing (restarted "
                   "3 times, last exit code 1); see 'kftrain logs --previous --replica node-1'\n"));
    // Its pod is Running, its container waiting to restart: restarting, as kubectl shows it.
    CHECK(contains(crash.out,
                   "node-1   Restarting  3         CrashLoopBackOff  1     "
                   "mnist-trainjob-node-0-1-q9w4m  gke-ml-pool-1-c3d4"));
    FakeCluster init("trainjob-initializer");
    auto steps = init.run({"status", "mnist-trainjob", "-n", "ml-training"});
    CHECK(contains(steps.out, "dataset-initializer  Running  0\n"));
}

TEST_CASE("status reads a TrainJob's progress from trainerStatus, without its log",
          "[cluster][cli][trainjob]") {
    FakeCluster cluster("trainjob-progress");
    auto run = cluster.run({"status", "mnist-trainjob", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out,
                   "Progress:   45% epoch 2/3 loss 0.3121 acc 91.2% 1234 samples/s ETA "
                   "1m40s (from trainerStatus)\n"));
    for (const auto& call : cluster.calls()) {
        CHECK(call.at(0) != "logs");
    }
    auto json_run = cluster.run({"status", "mnist-trainjob", "-n", "ml-training", "-o", "json"});
    REQUIRE(json_run.code == 0);
    auto doc = nlohmann::json::parse(json_run.out);
    CHECK(doc["kind"] == "TrainJob");
    CHECK(doc["state"] == "Running");
    CHECK(doc["replicasWanted"] == 2);
    CHECK(doc["replicaCounts"]["Node"]["active"] == 2);
    CHECK(doc["replicas"][1]["name"] == "node-1");
    CHECK(doc["replicas"][1]["pod"] == "mnist-trainjob-node-0-1-q9w4m");
    CHECK(doc["progress"]["percent"] == 45.0);
    CHECK(doc["progress"]["etaSeconds"] == 100.0);
    auto yaml = cluster.run({"status", "mnist-trainjob", "-n", "ml-training", "-o", "yaml"});
    CHECK(contains(yaml.out, "kind: TrainJob\n"));
}

TEST_CASE("status prices a TrainJob's nodes from numNodes and resourcesPerNode",
          "[cluster][cli][trainjob]") {
    FakeCluster cpu("trainjob-complete");  // 7m40s x 2 nodes of 2 cores and 4 GiB
    auto run = cpu.run({"status", "mnist-trainjob", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out,
                   "Cost:       $0.0205: 2 replicas x $0.0802/h each (2 cores, 4 GiB), built-in "
                   "prices\n"));
    FakeCluster gpu("trainjob-gpu-complete");  // the GPU type from the runtime patch
    auto gpu_run = gpu.run({"status", "mnist-trainjob", "-n", "ml-training"});
    REQUIRE(gpu_run.code == 0);
    CHECK(contains(gpu_run.out, "2 replicas x $4.10/h each (1 x a100), built-in prices\n"));
}

TEST_CASE("a cluster that serves only one of the two kinds still finds its jobs",
          "[cluster][cli][trainjob]") {
    FakeCluster cluster("trainjob-only");
    auto run = cluster.run({"status", "mnist-trainjob", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "Kind:       TrainJob\n"));
    auto calls = cluster.calls();
    REQUIRE(calls.size() >= 2);
    CHECK(calls[1] == Argv{"get", "trainjobs.trainer.kubeflow.org", "-o", "json", "-n",
                           "ml-training", "--", "mnist-trainjob"});
    FakeCluster missing("trainjob-not-found");
    auto none = missing.run({"status", "mnist-trainjob", "-n", "ml-training"});
    CHECK(none.code == 3);
    CHECK(none.err ==
          "kftrain: error: no TrainJob named mnist-trainjob in namespace ml-training (hint: check "
          "the name and the namespace (-n))\n");
}

TEST_CASE("list shows both kinds with a KIND column", "[cluster][cli][trainjob]") {
    FakeCluster cluster("list-mixed");
    auto run = cluster.run({"list", "-A"});
    REQUIRE(run.code == 0);
    CHECK(run.out.rfind("NAMESPACE    NAME            KIND        STATE      REPLICAS  AGE\n"
                        "ml-training  mnist-ddp       PyTorchJob  Running    3/3       ",
                        0) == 0);
    CHECK(contains(run.out, "\nml-training  mnist-trainjob  TrainJob    Running    2/2       "));
    CHECK(contains(run.out, "\nteam-b       llm-finetune    TrainJob    Succeeded  0/4       "));
    auto json_run = cluster.run({"list", "-A", "-o", "json"});
    auto items = nlohmann::json::parse(json_run.out).at("items");
    REQUIRE(items.size() == 3);
    CHECK(items[1]["kind"] == "TrainJob");
    CHECK(items[2]["state"] == "Succeeded");
}

TEST_CASE("list on a cluster that serves one kind lists that kind without an error",
          "[cluster][cli][trainjob]") {
    FakeCluster trainer("trainjob-only");
    auto run = trainer.run({"list", "-A"});
    CHECK(run.code == 0);
    CHECK(run.err == "");
    CHECK(contains(run.out, "mnist-trainjob  TrainJob"));
    CHECK_FALSE(contains(run.out, "PyTorchJob"));
    CHECK(trainer.calls().back() ==
          Argv{"get", "trainjobs.trainer.kubeflow.org", "-o", "json", "-A"});
    FakeCluster operator_only("pytorchjob-only");
    auto v1 = operator_only.run({"list", "-n", "ml-training"});
    CHECK(v1.code == 0);
    CHECK(v1.err == "");
    CHECK(contains(v1.out, "mnist-ddp  PyTorchJob"));
    CHECK_FALSE(contains(v1.out, "TrainJob"));
}

TEST_CASE("delete deletes a TrainJob as a trainjob", "[cluster][cli][trainjob]") {
    FakeCluster cluster("trainjob-running");
    auto run = cluster.run({"delete", "mnist-trainjob", "-n", "ml-training", "--wait"});
    CHECK(run.code == 0);
    CHECK(run.out == "trainjob/mnist-trainjob deleted\n");
    REQUIRE(cluster.calls().size() == 3);
    CHECK(cluster.calls().at(1) == Argv{"delete", "trainjobs.trainer.kubeflow.org", "--wait=true",
                                        "-n", "ml-training", "--", "mnist-trainjob"});
    // Its code ConfigMaps go with it, by label.
    CHECK(cluster.calls().at(2) == Argv{"delete", "configmap", "-l",
                                        "kftrain.io/code-of=mnist-trainjob,kftrain.io/code-for=job",
                                        "--ignore-not-found", "--wait=false", "-n", "ml-training"});
    FakeCluster missing("trainjob-not-found");
    CHECK(missing.run({"delete", "mnist-trainjob", "-n", "ml-training"}).code == 3);
}

TEST_CASE("describe a TrainJob: runtime, nodes, steps, conditions and events",
          "[cluster][cli][trainjob]") {
    FakeCluster pending("trainjob-unschedulable");
    auto run = pending.run({"describe", "mnist-trainjob", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "Kind:       TrainJob\n"));
    CHECK(contains(run.out,
                   "node-0   Pending  0         Unschedulable        "
                   "mnist-trainjob-node-0-0-x7k2p"));
    CHECK(contains(run.out,
                   "\nRuntime:    ClusterTrainingRuntime/torch-distributed\n"
                   "Num nodes:  2\n"
                   "\nJobs:\n"
                   "STEP  ACTIVE  READY  SUCCEEDED  FAILED  SUSPENDED\n"
                   "node  1       0      0          0       0\n"
                   "\nConditions: none\n"));
    CHECK(contains(run.out,
                   "job/mnist-trainjob-node-0          Created pod: "
                   "mnist-trainjob-node-0-1-q9w4m\n"));
    CHECK(contains(run.out, "pod/mnist-trainjob-node-0-1-q9w4m  0/3 nodes are available"));
    CHECK_FALSE(contains(run.out, "other-job"));
    FakeCluster deadline("trainjob-deadline");
    auto failed = deadline.run({"describe", "mnist-trainjob", "-n", "ml-training"});
    REQUIRE(failed.code == 0);
    CHECK(contains(failed.out,
                   "Conditions:\n"
                   "TYPE    STATUS  REASON            LAST TRANSITION       MESSAGE\n"
                   "Failed  True    DeadlineExceeded  2026-05-01T10:10:00Z  TrainJob exceeded its "
                   "active deadline\n"));
    CHECK(contains(failed.out,
                   "job/mnist-trainjob-node-0  Created pod: mnist-trainjob-node-0-0-x7k2p\n"));
}

TEST_CASE("runtimes lists the cluster's and the namespace's training runtimes",
          "[cluster][cli][trainjob]") {
    FakeCluster cluster("runtimes");
    auto run = cluster.run({"runtimes", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(run.out.rfind("NAME                   KIND                    FRAMEWORK  NUM NODES  AGE\n"
                        "deepspeed-distributed  ClusterTrainingRuntime  deepspeed  1          ",
                        0) == 0);
    CHECK(contains(run.out, "\ntorch-distributed      ClusterTrainingRuntime  torch      1 "));
    CHECK(contains(run.out, "\ntorch-mnist-small      TrainingRuntime         torch      2 "));
    CHECK(cluster.calls() ==
          std::vector<Argv>{{"get",
                             "clustertrainingruntimes.trainer.kubeflow.org,trainingruntimes."
                             "trainer.kubeflow.org",
                             "-o", "json", "-n", "ml-training"}});
    auto json_run = cluster.run({"runtimes", "-o", "json"});
    auto items = nlohmann::json::parse(json_run.out).at("items");
    REQUIRE(items.size() == 3);
    CHECK(items[2] == nlohmann::json{{"name", "torch-mnist-small"},
                                     {"kind", "TrainingRuntime"},
                                     {"namespace", "ml-training"},
                                     {"framework", "torch"},
                                     {"numNodes", 2},
                                     {"created", "2026-04-28T15:30:00Z"}});
    FakeCluster none("runtimes-none");
    auto empty = none.run({"runtimes"});
    CHECK(empty.code == 0);
    CHECK(empty.out == "");
    CHECK(empty.err == "No training runtimes found.\n");
}

TEST_CASE("runtimes without Trainer v2 exits 4 with a hint, --local and bad -o exit 2",
          "[cluster][cli][trainjob]") {
    FakeCluster cluster("runtimes-missing");
    auto run = cluster.run({"runtimes", "-n", "ml-training"});
    CHECK(run.code == 4);
    CHECK(run.out == "");
    CHECK(run.err ==
          "kftrain: error: listing training runtimes: the server doesn't have a resource type "
          "\"clustertrainingruntimes\" (hint: Kubeflow Trainer v2 is not installed; this cluster "
          "runs PyTorchJobs (Kubeflow Training Operator), which need no runtime: submit with kind "
          "PyTorchJob)\n");
    FakeCluster unused("runtimes");
    auto local = unused.run({"runtimes", "--local"});
    CHECK(local.code == 2);
    CHECK(local.err ==
          "kftrain: error: --local: training runtimes are a cluster's (Kubeflow Trainer v2); a "
          "local TrainJob needs none (got --local)\n");
    auto wide = unused.run({"runtimes", "-o", "wide"});
    CHECK(wide.code == 2);
    CHECK(wide.err == "kftrain: error: -o/--output: must be table, json or yaml (got wide)\n");
    CHECK(unused.calls().empty());
}

TEST_CASE("submit names the kind the cluster serves when it lacks the one chosen",
          "[cluster][cli][trainjob]") {
    const std::string file = std::string(kftrain::test::source_dir()) + "/examples/mnist-ddp.yaml";
    FakeCluster trainer("trainjob-only");
    auto run = trainer.run({"submit", "-f", file, "-n", "ml-training"});
    CHECK(run.code == 4);
    CHECK(run.out == "");
    CHECK(run.err ==
          "kftrain: error: submitting pytorchjob/mnist-ddp: resource mapping not found for name: "
          "\"mnist-ddp\" namespace: \"ml-training\" from \"STDIN\": no matches for kind "
          "\"PyTorchJob\" in version \"kubeflow.org/v1\" (hint: this cluster serves TrainJob "
          "(Kubeflow Trainer v2): use --kind TrainJob)\n");
    FakeCluster training_operator("pytorchjob-only");
    auto v2 =
        training_operator.run({"submit", "-f", file, "-n", "ml-training", "--kind", "TrainJob"});
    CHECK(v2.code == 4);
    CHECK(contains(v2.err,
                   "no matches for kind \"TrainJob\" in version "
                   "\"trainer.kubeflow.org/v1alpha1\" (hint: this cluster serves "
                   "PyTorchJob (Kubeflow Training Operator): use --kind PyTorchJob)\n"));
    FakeCluster both("trainjob-running");
    auto ok = both.run({"submit", "-f", file, "-n", "ml-training", "--kind", "TrainJob"});
    CHECK(ok.code == 0);
    CHECK(ok.out == "trainjob/mnist-ddp submitted\n");
}

TEST_CASE("one whom RBAC lets read PyTorchJobs but not TrainJobs still finds and lists them",
          "[cluster][cli][trainjob]") {
    FakeCluster cluster("trainjobs-forbidden");
    auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
    CHECK(run.code == 0);
    CHECK(contains(run.out, "Kind:       PyTorchJob\n"));
    CHECK(cluster.calls().at(1) == Argv{"get", "pytorchjobs.kubeflow.org", "-o", "json", "-n",
                                        "ml-training", "--", "mnist-ddp"});
    auto listed = cluster.run({"list", "-n", "ml-training"});
    CHECK(listed.code == 0);
    CHECK(listed.err == "");
    CHECK(contains(listed.out, "mnist-ddp  PyTorchJob  Running"));
    CHECK_FALSE(contains(listed.out, "TrainJob"));
    auto hidden = cluster.run({"status", "mnist-trainjob", "-n", "ml-training"});
    CHECK(hidden.code == 4);
    CHECK(contains(hidden.err,
                   "kftrain: error: reading trainjob/mnist-trainjob: Error from server "
                   "(Forbidden): trainjobs.trainer.kubeflow.org"));
}
