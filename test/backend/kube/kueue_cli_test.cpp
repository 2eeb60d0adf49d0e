#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/test_data.h"

using kftrain::test::contains;
using kftrain::test::FakeCluster;

namespace {

using Argv = std::vector<std::string>;

const char* const k_lq = "localqueues.kueue.x-k8s.io";
const char* const k_workloads = "workloads.kueue.x-k8s.io";
// Return the line of text that starts with head, without its newline ("" when none does).
std::string line_of(const std::string& text, const std::string& head) {
    auto at = text.find("\n" + head);
    at = text.rfind(head, 0) == 0 ? 0 : (at == std::string::npos ? at : at + 1);
    if (at == std::string::npos) {
        return "";
    }
    return text.substr(at, text.find('\n', at) - at);
}

// Return whether any kubectl call has this word.
bool called_with(const FakeCluster& cluster, const std::string& word) {
    for (const auto& call : cluster.calls()) {
        for (const auto& arg : call) {
            if (arg == word) {
                return true;
            }
        }
    }
    return false;
}

}  // namespace

TEST_CASE("submit --queue checks the LocalQueue, then applies the job suspended and labelled",
          "[cluster][cli][kueue]") {
    FakeCluster cluster("kueue-queues");
    auto run = cluster.run({"submit", "-f", kftrain::test::k_example_job, "--queue", "team-a",
                            "--priority-class", "high"});
    // The example's 16 CPUs fit the ClusterQueue gpu's 32 once others' 24 are released.
    CHECK(run.err ==
          "kftrain: warning: ClusterQueue gpu admits the job when others' workloads finish: cpu "
          "asked 16, used 24 of 32 in flavor a100\n");
    CHECK(run.out == "pytorchjob/mnist-ddp submitted\n");
    REQUIRE(run.code == 0);
    auto calls = cluster.calls();
    REQUIRE(calls.size() == 5);
    CHECK(calls[0] ==
          Argv{"get", k_lq, "-o", "json", "--namespace", "ml-training", "--", "team-a"});
    CHECK(calls[1] == Argv{"get", "resourcequotas,limitranges", "-o", "json", "--namespace",
                           "ml-training"});  // the namespace's quotas (docs/shared-clusters.md)
    // Its ClusterQueue's quota (docs/shared-clusters.md#kueue-quota), then the job.
    CHECK(calls[2] == Argv{"get", "clusterqueues.kueue.x-k8s.io", "-o", "json", "--", "gpu"});
    // Who submits it: the kubeconfig user, a label its record in history keeps.
    CHECK(calls[3] == Argv{"config", "view", "--minify", "-o", "json"});
    CHECK(calls[4] == Argv{"apply", "--server-side", "--field-manager=kftrain", "--force-conflicts",
                           "-f", "-", "--namespace", "ml-training"});
    const std::string applied = cluster.applied().at(0);
    CHECK(contains(applied, "    kueue.x-k8s.io/queue-name: team-a\n"));
    CHECK(contains(applied, "    kueue.x-k8s.io/priority-class: high\n"));
    CHECK(contains(applied, "  runPolicy:\n"));
    CHECK(contains(applied, "\n    suspend: true\n"));
}

TEST_CASE("submit --queue of a TrainJob applies it with spec.suspend", "[cluster][cli][kueue]") {
    FakeCluster cluster("kueue-queues");
    auto run = cluster.run(
        {"submit", "-f", kftrain::test::k_example_job, "--kind", "TrainJob", "--queue", "team-a"});
    // The example's 16 CPUs fit the ClusterQueue gpu's 32 once others' 24 are released.
    CHECK(run.err ==
          "kftrain: warning: ClusterQueue gpu admits the job when others' workloads finish: cpu "
          "asked 16, used 24 of 32 in flavor a100\n");
    CHECK(run.out == "trainjob/mnist-ddp submitted\n");
    REQUIRE(run.code == 0);
    const std::string applied = cluster.applied().at(0);
    CHECK(contains(applied, "    kueue.x-k8s.io/queue-name: team-a\n"));
    CHECK(contains(applied, "\n  suspend: true\n"));
}

TEST_CASE("submit --queue without Kueue on the cluster exits 4 with a hint, applying nothing",
          "[cluster][cli][kueue]") {
    FakeCluster cluster("kueue-missing");
    auto run = cluster.run({"submit", "-f", kftrain::test::k_example_job, "--queue", "team-a"});
    CHECK(run.code == 4);
    CHECK(run.out == "");
    CHECK(run.err ==
          "kftrain: error: --queue: Kueue is not installed on this cluster, so no job can wait in "
          "LocalQueue team-a (hint: install Kueue "
          "(https://kueue.sigs.k8s.io/docs/installation/) and a LocalQueue, or submit without a "
          "queue)\n");
    CHECK(cluster.applied().empty());
    CHECK_FALSE(called_with(cluster, "apply"));
}

TEST_CASE("tune --queue checks the LocalQueue, then applies an Experiment whose trials wait in it",
          "[cluster][cli][kueue]") {
    FakeCluster cluster("kueue-queues");
    auto run = cluster.run({"tune", "-f", kftrain::test::k_example_job, "--param",
                            "lr=0.001:0.1:log", "--queue", "team-a"});
    CHECK(run.err == "");
    REQUIRE(run.code == 0);
    auto calls = cluster.calls();
    REQUIRE(calls.size() == 2);
    CHECK(calls[0] ==
          Argv{"get", k_lq, "-o", "json", "--namespace", "ml-training", "--", "team-a"});
    const std::string applied = cluster.applied().at(0);
    CHECK(contains(applied, "kind: Experiment\n"));
    CHECK(contains(applied, "kueue.x-k8s.io/queue-name: team-a\n"));
    CHECK(contains(applied, "suspend: true\n"));

    FakeCluster without("kueue-missing");
    auto refused = without.run({"tune", "-f", kftrain::test::k_example_job, "--param",
                                "lr=0.001:0.1:log", "--queue", "team-a"});
    CHECK(refused.code == 4);
    CHECK(contains(refused.err, "Kueue is not installed on this cluster"));
    CHECK_FALSE(called_with(without, "apply"));
}

TEST_CASE("submit to a LocalQueue that does not exist names it and applies nothing",
          "[cluster][cli][kueue]") {
    FakeCluster cluster("kueue-queues");
    auto run = cluster.run({"submit", "-f", kftrain::test::k_example_job, "--queue", "team-z"});
    CHECK(run.code == 3);
    CHECK(run.err ==
          "kftrain: error: --queue: no LocalQueue team-z in namespace ml-training (hint: "
          "'kftrain queues -n ml-training' lists its queues)\n");
    CHECK_FALSE(called_with(cluster, "apply"));
}

TEST_CASE("submit with bad queue names exits 2 before any kubectl", "[cluster][cli][kueue]") {
    const std::string subdomain =
        "a DNS-1123 subdomain: at most 253 lower-case letters, digits, '-' and '.', starting and "
        "ending with a letter or digit";
    struct Case {
        Argv flags;
        std::string err;
    };
    const Case cases[] = {
        {{"--queue", "Team_A"},
         "kftrain: error: --queue: must name a LocalQueue: " + subdomain + " (got Team_A)\n"},
        {{"--queue", "team-a", "--priority-class", "High"},
         "kftrain: error: --priority-class: must name a WorkloadPriorityClass: " + subdomain +
             " (got High)\n"},
        {{"--priority-class", "high"},
         "kftrain: error: --priority-class: needs queue (--queue): Kueue reads the priority "
         "class of queued jobs only (got high)\n"},
    };
    for (const auto& c : cases) {
        INFO(c.err);
        FakeCluster cluster("kueue-queues");
        Argv args = {"submit", "-f", kftrain::test::k_example_job};
        args.insert(args.end(), c.flags.begin(), c.flags.end());
        auto run = cluster.run(args);
        CHECK(run.code == 2);
        CHECK(run.err == c.err);
        CHECK(cluster.calls().empty());
    }
}

TEST_CASE("submit --dry-run with a queue prints the suspended job and runs no kubectl",
          "[cluster][cli][kueue]") {
    FakeCluster cluster("kueue-missing");
    auto run = cluster.run(
        {"submit", "-f", kftrain::test::k_example_job, "--queue", "team-a", "--dry-run"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "kueue.x-k8s.io/queue-name: team-a\n"));
    CHECK(cluster.calls().empty());
}

TEST_CASE("status of a queued PyTorchJob shows its place in the queue from Kueue's Workload",
          "[cluster][cli][kueue]") {
    FakeCluster cluster("kueue-pending");
    auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
    CHECK(run.err == "");
    REQUIRE(run.code == 0);
    CHECK(line_of(run.out, "State:") ==
          "State:      Queued in team-a (position 3 of 7 in team-a, 12 in cluster-queue gpu): "
          "couldn't assign flavors to pod set worker: insufficient unused quota for "
          "nvidia.com/gpu in flavor a100, 4 more needed");
    CHECK(contains(line_of(run.out, "Queue:"),
                   "Queue:      team-a -> cluster-queue gpu, priority high, workload "
                   "pytorchjob-mnist-ddp-3f9a2, waiting "));
    auto calls = cluster.calls();
    CHECK(std::find(calls.begin(), calls.end(),
                    Argv{"get", k_workloads, "-o", "json", "-l",
                         std::string("kueue.x-k8s.io/job-uid=") + kftrain::test::k_mnist_ddp_uid,
                         "--namespace", "ml-training"}) != calls.end());
    CHECK(std::find(calls.begin(), calls.end(),
                    Argv{"get", "--raw",
                         "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/ml-training/"
                         "localqueues/team-a/pendingworkloads"}) != calls.end());
}

TEST_CASE("status -o json carries the queue with its positions", "[cluster][cli][kueue]") {
    FakeCluster cluster("kueue-pending");
    auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training", "-o", "json"});
    REQUIRE(run.code == 0);
    auto doc = nlohmann::json::parse(run.out);
    const auto& queue = doc["queue"];
    CHECK(queue["state"] == "Pending");
    CHECK(queue["localQueue"] == "team-a");
    CHECK(queue["clusterQueue"] == "gpu");
    CHECK(queue["workload"] == "pytorchjob-mnist-ddp-3f9a2");
    CHECK(queue["priorityClass"] == "high");
    CHECK(queue["priority"] == 1000);
    CHECK(queue["position"] == 3);
    CHECK(queue["pendingInQueue"] == 7);
    CHECK(queue["positionInClusterQueue"] == 12);
    CHECK(queue["reason"] == "Pending");
    CHECK(doc["state"] == "Suspended");
}

TEST_CASE(
    "status of a queued job says so without positions where the visibility API is "
    "not served, and finds them in v1beta1 where only that is",
    "[cluster][cli][kueue]") {
    FakeCluster none("kueue-pending-no-visibility");
    auto run = none.run({"status", "mnist-ddp", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(run.err == "");
    CHECK(line_of(run.out, "State:").rfind("State:      Queued in team-a: couldn't assign", 0) ==
          0);

    FakeCluster old("kueue-pending-v1beta1");
    auto older = old.run({"status", "mnist-ddp", "-n", "ml-training"});
    REQUIRE(older.code == 0);
    CHECK(contains(older.out,
                   "Queued in team-a (position 3 of 7 in team-a, 12 in "
                   "cluster-queue gpu)"));
}

TEST_CASE("status follows the Workload: admitted, evicted, requeued, not made yet",
          "[cluster][cli][kueue]") {
    const std::string preempted =
        "Preempted to accommodate a workload (UID: 5f4e3d2c-1b0a-4f9e-8d7c-6b5a4f3e2d1c, JobUID: "
        "0b9e8d7c-6a5f-4e3d-2c1b-0a9f8e7d6c5b) due to prioritization in the ClusterQueue";
    struct Case {
        const char* scenario;
        std::string state;
    };
    const Case cases[] = {
        {"kueue-admitted", "State:      Admitted to gpu"},
        {"kueue-evicted", "State:      Evicted from gpu (Preempted): " + preempted},
        {"kueue-requeued",
         "State:      Queued in team-a (position 1 of 2 in team-a, 1 in cluster-queue gpu; "
         "requeued after eviction (Preempted)): couldn't assign flavors to pod set worker: "
         "insufficient unused quota for nvidia.com/gpu in flavor a100, 4 more needed"},
        {"kueue-no-workload", "State:      Queued in team-a (Kueue has not made its Workload yet)"},
    };
    for (const auto& c : cases) {
        SECTION(c.scenario) {
            FakeCluster cluster(c.scenario);
            auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
            CHECK(run.err == "");
            REQUIRE(run.code == 0);
            CHECK(line_of(run.out, "State:") == c.state);
        }
    }
}

TEST_CASE("status of a queued TrainJob reads its Workload the same way",
          "[cluster][cli][kueue][trainjob]") {
    struct Case {
        const char* scenario;
        std::string state;
    };
    const Case cases[] = {
        {"kueue-trainjob-pending",
         "State:      Queued in team-a (position 1 of 2 in team-a, 2 in cluster-queue gpu): "
         "couldn't assign flavors to pod set node: insufficient unused quota for cpu in flavor "
         "default, 2 more needed"},
        {"kueue-trainjob-admitted", "State:      Admitted to gpu"},
        {"kueue-trainjob-evicted",
         "State:      Evicted from gpu (Preempted): Preempted to accommodate a workload (UID: "
         "7c6b5a4f-3e2d-4c1b-8a9f-0e1d2c3b4a59, JobUID: 2d3c4b5a-6f7e-4d8c-9b0a-1f2e3d4c5b6a) "
         "due to reclamation within the cohort"},
    };
    for (const auto& c : cases) {
        SECTION(c.scenario) {
            FakeCluster cluster(c.scenario);
            auto run = cluster.run({"status", "mnist-trainjob", "-n", "ml-training"});
            CHECK(run.err == "");
            REQUIRE(run.code == 0);
            CHECK(line_of(run.out, "Kind:") == "Kind:       TrainJob");
            CHECK(line_of(run.out, "State:") == c.state);
        }
    }
}

TEST_CASE("status of a job in no queue reads nothing of Kueue", "[cluster][cli][kueue]") {
    FakeCluster cluster("running");
    auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(line_of(run.out, "Queue:") == "");
    CHECK_FALSE(called_with(cluster, k_workloads));
    CHECK_FALSE(called_with(cluster, "--raw"));
}

TEST_CASE("wait --for admitted waits while the job is queued and ends when Kueue admits it",
          "[cluster][cli][kueue]") {
    for (const char* scenario : {"kueue-wait", "kueue-trainjob-wait"}) {
        SECTION(scenario) {
            const std::string job =
                std::string(scenario) == "kueue-wait" ? "mnist-ddp" : "mnist-trainjob";
            FakeCluster cluster(scenario);
            auto run = cluster.run({"wait", job, "-n", "ml-training", "--for", "admitted",
                                    "--interval", "10ms", "--timeout", "60s"});
            CHECK(run.err == "");
            CHECK(run.code == 0);
            CHECK(contains(run.out, ": Queued in team-a (position "));
            CHECK(contains(run.out, ": Admitted to gpu\n"));
        }
    }
}

TEST_CASE("wait --for running waits through the queue instead of failing",
          "[cluster][cli][kueue]") {
    FakeCluster cluster("kueue-wait");
    auto run = cluster.run({"wait", "mnist-ddp", "-n", "ml-training", "--for", "running",
                            "--interval", "10ms", "--timeout", "60s"});
    CHECK(run.err == "");
    CHECK(run.code == 0);
    CHECK(run.out ==
          "pytorchjob/mnist-ddp: Queued in team-a (position 3 of 7 in team-a, 12 in "
          "cluster-queue gpu): couldn't assign flavors to pod set worker: insufficient unused "
          "quota for nvidia.com/gpu in flavor a100, 4 more needed\n"
          "pytorchjob/mnist-ddp: Admitted to gpu\n"
          // Once admitted, the workers' containers wait as PodInitializing behind
          // init-pytorch, as a real kubelet reports them.
          "  worker-0: waiting in init container init-pytorch for the master to start\n"
          "  worker-1: waiting in init container init-pytorch for the master to start\n"
          "pytorchjob/mnist-ddp: Running (PyTorchJobRunning): PyTorchJob mnist-ddp is "
          "running.\n");
}

TEST_CASE("queues lists the namespace's LocalQueues as a table, JSON or YAML",
          "[cluster][cli][kueue]") {
    FakeCluster cluster("kueue-queues");
    auto run = cluster.run({"queues", "-n", "ml-training"});
    CHECK(run.err == "");
    REQUIRE(run.code == 0);
    CHECK(run.out ==
          "NAME     CLUSTERQUEUE  PENDING  RESERVING  ADMITTED  ACTIVE                            "
          "QUOTA                                 USAGE\n"
          "team-a   gpu           7        2          2         True                              "
          "cpu=32,memory=256Gi,nvidia.com/gpu=8  cpu=24,memory=96Gi,nvidia.com/gpu=6\n"
          "team-b   cpu           0        1          1         True                              "
          "cpu=16+8,memory=64Gi                  cpu=6,memory=24Gi\n"
          "scratch  retired       0        0          0         False (ClusterQueueDoesNotExist)  "
          "-                                     -\n");
    // One read of the ClusterQueues for all the queues: they are cluster-scoped.
    CHECK(cluster.calls() ==
          std::vector<Argv>{{"get", k_lq, "-o", "json", "-n", "ml-training"},
                            {"get", "clusterqueues.kueue.x-k8s.io", "-o", "json"}});

    auto json_run = cluster.run({"queues", "-n", "ml-training", "-o", "json"});
    REQUIRE(json_run.code == 0);
    auto doc = nlohmann::json::parse(json_run.out);
    REQUIRE(doc["items"].size() == 3);
    CHECK(doc["items"][0] == nlohmann::json{{"name", "team-a"},
                                            {"namespace", "ml-training"},
                                            {"clusterQueue", "gpu"},
                                            {"pending", 7},
                                            {"reserving", 2},
                                            {"admitted", 2},
                                            {"active", true},
                                            {"reason", ""},
                                            {"message", ""},
                                            {"quota", nlohmann::json::array({
                                                          {{"flavor", "a100"},
                                                           {"resource", "cpu"},
                                                           {"nominalQuota", "32"},
                                                           {"borrowingLimit", nullptr},
                                                           {"used", "24"}},
                                                          {{"flavor", "a100"},
                                                           {"resource", "memory"},
                                                           {"nominalQuota", "256Gi"},
                                                           {"borrowingLimit", nullptr},
                                                           {"used", "96Gi"}},
                                                          {{"flavor", "a100"},
                                                           {"resource", "nvidia.com/gpu"},
                                                           {"nominalQuota", "8"},
                                                           {"borrowingLimit", nullptr},
                                                           {"used", "6"}},
                                                      })}});
    CHECK(doc["items"][1]["quota"][0]["borrowingLimit"] == "8");
    CHECK(doc["items"][2]["quota"] == nullptr);
    auto yaml_run = cluster.run({"queues", "-n", "ml-training", "-o", "yaml"});
    REQUIRE(yaml_run.code == 0);
    CHECK(contains(yaml_run.out, "clusterQueue: gpu\n"));
}

TEST_CASE("queues that may not read the ClusterQueues warn once and show no quota",
          "[cluster][cli][kueue]") {
    FakeCluster cluster("kueue-queues-forbidden");
    auto run = cluster.run({"queues", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(run.err ==
          "kftrain: warning: the ClusterQueues' quota and usage could not be read, so they show "
          "as -: listing ClusterQueues: Error from server (Forbidden): "
          "clusterqueues.kueue.x-k8s.io is forbidden: User "
          "\"system:serviceaccount:ml-training:dev\" cannot list resource \"clusterqueues\" in "
          "API group \"kueue.x-k8s.io\" at the cluster scope (hint: ClusterQueues are "
          "cluster-scoped: a cluster admin can grant list on clusterqueues.kueue.x-k8s.io)\n");
    CHECK(contains(run.out, "team-a   gpu           7        2          2         True"));
    CHECK(contains(run.out, "  -      -\n"));
    auto json_run = cluster.run({"queues", "-n", "ml-training", "-o", "json"});
    REQUIRE(json_run.code == 0);
    CHECK(nlohmann::json::parse(json_run.out)["items"][0]["quota"] == nullptr);
}

TEST_CASE("queues without Kueue exits 4 with a hint, with none says so", "[cluster][cli][kueue]") {
    FakeCluster missing("kueue-missing");
    auto run = missing.run({"queues", "-n", "ml-training"});
    CHECK(run.code == 4);
    CHECK(run.out == "");
    CHECK(run.err ==
          "kftrain: error: listing LocalQueues: Kueue is not installed on this cluster: "
          "the server doesn't have a resource type \"localqueues\" (hint: install Kueue "
          "(https://kueue.sigs.k8s.io/docs/installation/))\n");

    FakeCluster empty("kueue-queues-empty");
    auto none = empty.run({"queues", "-n", "ml-training"});
    CHECK(none.code == 0);
    CHECK(none.out == "");
    CHECK(none.err == "No LocalQueues in namespace ml-training.\n");
}

TEST_CASE("list --queue shows the jobs of a LocalQueue in queue order with position and wait",
          "[cluster][cli][kueue]") {
    FakeCluster cluster("kueue-list");
    auto run = cluster.run({"list", "--queue", "team-a", "-n", "ml-training"});
    CHECK(run.err == "");
    REQUIRE(run.code == 0);
    CHECK(line_of(run.out, "POSITION") ==
          "POSITION  NAME            KIND        STATE     WAITING");
    CHECK(line_of(run.out, "1 ").rfind("1         mnist-ddp       PyTorchJob  Pending   ", 0) == 0);
    CHECK(line_of(run.out, "2 ").rfind("2         bert-finetune   PyTorchJob  Pending   ", 0) == 0);
    CHECK(line_of(run.out, "- ") == "-         mnist-trainjob  TrainJob    Admitted  -");
    CHECK(cluster.calls() ==
          std::vector<Argv>{{"get", k_workloads, "-o", "json", "-n", "ml-training"},
                            {"get", "--raw",
                             "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/ml-training/"
                             "localqueues/team-a/pendingworkloads"}});

    auto json_run = cluster.run({"list", "--queue", "team-a", "-n", "ml-training", "-o", "json"});
    REQUIRE(json_run.code == 0);
    auto doc = nlohmann::json::parse(json_run.out);
    REQUIRE(doc["items"].size() == 3);
    CHECK(doc["items"][0]["name"] == "mnist-ddp");
    CHECK(doc["items"][0]["position"] == 1);
    CHECK(doc["items"][0]["waitingSeconds"].is_number());
    CHECK(doc["items"][2]["state"] == "Admitted");
    CHECK(doc["items"][2]["position"].is_null());

    auto both = cluster.run({"list", "--queue", "team-a", "-A"});
    CHECK(both.code == 2);
    CHECK(both.err ==
          "kftrain: error: --queue: a LocalQueue belongs to one namespace; drop -A "
          "(got --queue team-a with -A)\n");
}

TEST_CASE("suspend and resume of a queued job go through its Workload's active, not the job",
          "[cluster][cli][kueue]") {
    // Kueue unsuspends a job whose Workload is admitted: a patch of the job's own suspend
    // would be undone. Deactivating the Workload evicts it, and Kueue suspends the job.
    for (const auto& [verb, active] : std::vector<std::pair<std::string, std::string>>{
             {"suspend", "false"}, {"resume", "true"}}) {
        INFO(verb);
        FakeCluster cluster("kueue-admitted");
        auto run = cluster.run({verb, "mnist-ddp", "-n", "ml-training", "--no-wait"});
        INFO(run.err);
        CHECK(run.code == 0);
        std::vector<Argv> patches;
        for (const auto& call : cluster.calls()) {
            if (!call.empty() && call[0] == "patch") {
                patches.push_back(call);
            }
        }
        CHECK(patches == std::vector<Argv>{{"patch", k_workloads, "--type", "merge", "-p",
                                            R"({"spec":{"active":)" + active + "}}", "-n",
                                            "ml-training", "--", "pytorchjob-mnist-ddp-3f9a2"}});
    }
}

TEST_CASE("submit --queue refuses a job its ClusterQueue can never admit, applying nothing",
          "[cluster][cli][kueue][quota]") {
    FakeCluster cluster("kueue-queues");
    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/job.yaml",
                              "name: huge\nnamespace: ml-training\nreplicas: 4\n"
                              "resources: {cpu: \"16\", memory: 8Gi}\n");
    auto run = cluster.run({"submit", "-f", dir + "/job.yaml", "--queue", "team-a"});
    CHECK(run.code == 2);
    CHECK(run.err.rfind("kftrain: error: ClusterQueue gpu can never admit the job: cpu asked 64",
                        0) == 0);
    CHECK_FALSE(called_with(cluster, "apply"));
    auto forced = cluster.run({"submit", "-f", dir + "/job.yaml", "--queue", "team-a", "--force"});
    CHECK(forced.code == 0);
    CHECK(contains(forced.err, "submitted anyway (--force)"));
}
