#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/fake_cluster.h"
#include "support/files.h"

using kftrain::test::contains;
using kftrain::test::FakeCluster;

TEST_CASE("status shows each phase of a cluster job as kubectl's State does", "[cluster][cli]") {
    struct Case {
        const char* scenario;
        const char* state;
    };
    const Case cases[] = {
        {"created", "State:      Created (PyTorchJobCreated): PyTorchJob mnist-ddp is created."},
        {"running", "State:      Running (PyTorchJobRunning): PyTorchJob mnist-ddp is running."},
        {"restarting",
         "State:      Restarting (PyTorchJobRestarting): PyTorchJob mnist-ddp is restarting "
         "because 1 Worker replica(s) failed."},
        {"succeeded",
         "State:      Succeeded (PyTorchJobSucceeded): PyTorchJob mnist-ddp is successfully "
         "completed."},
        {"failed",
         "State:      Failed (PyTorchJobFailed): PyTorchJob mnist-ddp is failed because 1 Master "
         "replica(s) failed."},
        {"suspended",
         "State:      Suspended (PyTorchJobSuspended): PyTorchJob mnist-ddp is suspended."},
    };
    for (const auto& c : cases) {
        SECTION(c.scenario) {
            FakeCluster cluster(c.scenario);
            auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
            CHECK(run.err == "");
            CHECK(run.code == 0);
            CHECK(contains(run.out, c.state));
            CHECK(contains(run.out, "Namespace:  ml-training\n"));
        }
    }
}

TEST_CASE("status of a running job shows replicas and the master's progress", "[cluster][cli]") {
    FakeCluster cluster("running");
    auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "Replicas:   Master: 1 active; Worker: 2 active\n"));
    CHECK(contains(run.out,
                   "Progress:   epoch 2/3 step 120/469 loss 0.3121 acc 91.2% 1234 samples/s "
                   "ETA 1m40s\n"));
    CHECK(contains(run.out,
                   "REPLICA   STATE    RESTARTS  REASON\n"
                   "master-0  Running  0\n"
                   "worker-0  Running  0\n"
                   "worker-1  Running  0\n"));
    auto calls = cluster.calls();
    REQUIRE(calls.size() >= 2);
    // One call finds the job among both kinds, by their group-qualified resources; the name
    // comes after "--", where kubectl reads no flag.
    CHECK(calls[0] == std::vector<std::string>{"get", kftrain::test::k_job_resources, "-o", "json",
                                               "--ignore-not-found", "-n", "ml-training", "--",
                                               "mnist-ddp"});
    CHECK(calls[1] == std::vector<std::string>{"get", "pods", "-l",
                                               "training.kubeflow.org/job-name=mnist-ddp", "-o",
                                               "json", "-n", "ml-training"});
}

TEST_CASE("status shows what the job has cost, priced from the catalog", "[cluster][cli]") {
    SECTION("a finished CPU job: 7m40s x 3 replicas of 2 cores and 4 GiB") {
        FakeCluster cluster("succeeded");
        auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
        REQUIRE(run.code == 0);
        CHECK(contains(run.out,
                       "Cost:       $0.0307: 3 replicas x $0.0802/h each (2 cores, 4 GiB), "
                       "built-in prices\n"));
    }
    SECTION("a running job's cost is so far") {
        FakeCluster cluster("running");
        auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
        REQUIRE(run.code == 0);
        CHECK(contains(run.out, " so far: 3 replicas x $0.0802/h each (2 cores, 4 GiB)"));
    }
    SECTION("GPU replicas: the type from the node selector, or --gpu") {
        FakeCluster cluster("gpu-succeeded");
        auto guessed = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
        REQUIRE(guessed.code == 0);
        CHECK(contains(guessed.out,
                       "Cost:       $1.57: 3 replicas x $4.10/h each (1 x a100), "
                       "built-in prices\n"));
        auto named = cluster.run({"status", "mnist-ddp", "-n", "ml-training", "--gpu", "h100"});
        REQUIRE(named.code == 0);
        CHECK(contains(named.out, "Cost:       $4.71: 3 replicas x $12.29/h each (1 x h100)"));
    }
    SECTION("another catalog from KFTRAIN_PRICES, and -o json") {
        FakeCluster cluster("succeeded");
        const std::string prices = kftrain::test::make_temp_dir() + "/prices.yaml";
        kftrain::test::write_file(prices,
                                  "source: test\ncpu:\n  perCoreHour: 1.5\n  perGiBHour: 0\n");
        auto env = cluster.env();
        env["KFTRAIN_PRICES"] = prices;
        auto run = kftrain::test::run_kftrain(
            {"status", "mnist-ddp", "-n", "ml-training", "-o", "json"}, env);
        REQUIRE(run.code == 0);
        auto cost = nlohmann::json::parse(run.out).at("cost");
        CHECK(cost.at("amount").get<double>() == Approx(460.0 / 3600 * 3 * 2 * 1.5));
        CHECK(cost.at("perHour").get<double>() == Approx(9.0));
        CHECK(cost.at("replicas") == 3);
        CHECK(cost.at("elapsedSeconds") == 460);
        CHECK(cost.at("final") == true);
        CHECK(cost.at("prices") == prices);
    }
    SECTION("a GPU job of unknown type says how to price it") {
        FakeCluster cluster("gpu-succeeded");
        const std::string prices = kftrain::test::make_temp_dir() + "/prices.yaml";
        kftrain::test::write_file(prices,
                                  "source: test\ngpus:\n  t4:\n    perGpu: 0.5\n"
                                  "    gpusPerNode: 4\n");
        auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training", "--prices", prices});
        REQUIRE(run.code == 0);
        CHECK(contains(run.out,
                       "Cost:       - (its GPU type is unknown: name it with --gpu "
                       "(one of t4 in " +
                           prices + "))\n"));
    }
}

TEST_CASE("status --watch prints each change until the job ends", "[cluster][cli]") {
    FakeCluster cluster("wait-succeeds");
    auto run =
        cluster.run({"status", "mnist-ddp", "-n", "ml-training", "--watch", "--interval", "10ms"});
    CHECK(run.code == 0);
    size_t created = run.out.find("State:      Created");
    size_t running = run.out.find("State:      Running");
    size_t succeeded = run.out.find("State:      Succeeded");
    CHECK(created < running);
    CHECK(running < succeeded);
    CHECK(succeeded != std::string::npos);
}

TEST_CASE("status finds pods by the labels of operators before v1.6", "[cluster][cli]") {
    for (const char* scenario : {"v15-running", "v13-running"}) {
        SECTION(scenario) {
            FakeCluster cluster(scenario);
            auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
            REQUIRE(run.code == 0);
            CHECK(contains(run.out, "worker-1  Running  0\n"));
        }
    }
}

TEST_CASE("status explains a job stuck in Created", "[cluster][cli]") {
    struct Case {
        const char* scenario;
        const char* line;
    };
    const Case cases[] = {
        {"pending-imagepull",
         "Diagnosis:  master-0: ImagePullBackOff: Failed to pull image "
         "\"registry.example.com/ml/kftrain-trainer:0.1.0\": rpc error: code = NotFound"},
        {"pending-unschedulable",
         "Diagnosis:  master-0: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu."},
        {"pending-init",
         "Diagnosis:  worker-0: waiting in init container init-pytorch for the master to start\n"
         "            worker-1: waiting in init container init-pytorch for the master to start\n"},
        {"created", "Diagnosis:  master-0: Pending: FailedMount: MountVolume.SetUp failed"},
        {"crashloop",
         "Diagnosis:  worker-1: CrashLoopBackOff: the container keeps crashing "
         "(restarted 5 times, last exit code 1)"},
    };
    for (const auto& c : cases) {
        SECTION(c.scenario) {
            FakeCluster cluster(c.scenario);
            auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
            CHECK(run.code == 0);
            CHECK(contains(run.out, c.line));
        }
    }
}

TEST_CASE("status -o json and -o wide carry the pods", "[cluster][cli]") {
    FakeCluster cluster("failed");
    auto json_run = cluster.run({"status", "mnist-ddp", "-n", "ml-training", "-o", "json"});
    REQUIRE(json_run.code == 0);
    auto doc = nlohmann::json::parse(json_run.out);
    CHECK(doc["state"] == "Failed");
    CHECK(doc["replicas"][0]["reason"] == "OOMKilled");
    CHECK(doc["replicas"][0]["exitCode"] == 137);
    CHECK(doc["durationSeconds"] == 301.0);
    auto wide = cluster.run({"status", "mnist-ddp", "-n", "ml-training", "-o", "wide"});
    CHECK(contains(wide.out, "master-0  Failed   0         OOMKilled  137   mnist-ddp-master-0"));
}

TEST_CASE("describe shows conditions and the events of the job and its pods", "[cluster][cli]") {
    FakeCluster cluster("pending-imagepull");
    auto run = cluster.run({"describe", "mnist-ddp", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "Conditions:\nTYPE     STATUS  REASON             LAST TRANSITION"));
    CHECK(contains(run.out, "Events:\n"));
    CHECK(contains(run.out, "pytorchjob/mnist-ddp"));
    CHECK(contains(run.out, "Warning  Failed"));
    CHECK_FALSE(contains(run.out, "other-job-master-0"));
    // Newest last: the BackOff of 10:02:40 comes after the Failed pull of 10:02:31.
    std::string events = run.out.substr(run.out.find("Events:\n"));
    CHECK(events.find("Back-off pulling image") > events.find("Failed to pull image"));
}

TEST_CASE("list shows every job, with namespaces under -A", "[cluster][cli]") {
    FakeCluster cluster("list");
    auto run = cluster.run({"list", "-A"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "NAMESPACE    NAME       KIND        STATE      REPLICAS  AGE\n"));
    CHECK(contains(run.out, "ml-training  mnist-ddp  PyTorchJob  Running    3/3"));
    CHECK(contains(run.out, "team-b       bigrun     PyTorchJob  Succeeded  0/9"));
    CHECK(cluster.calls().at(0) ==
          std::vector<std::string>{"get", kftrain::test::k_job_resources, "-o", "json", "-A"});
    FakeCluster empty("list-none");
    auto none = empty.run({"list", "-n", "ml-training"});
    CHECK(none.code == 0);
    CHECK(none.out == "");
    CHECK(none.err == "No jobs found.\n");
}

TEST_CASE("list -o wide shows each job's cost, and -o json its cost member", "[cluster][cli]") {
    FakeCluster cluster("list");
    auto wide = cluster.run({"list", "-A", "-o", "wide"});
    REQUIRE(wide.code == 0);
    CHECK(contains(wide.out, "REASON               COST     PROGRESS\n"));
    // bigrun: 8m59s x 9 replicas of 2 cores and 4 GiB at the built-in prices.
    CHECK(contains(wide.out, "PyTorchJobSucceeded  $0.1080"));
    auto json = cluster.run({"list", "-A", "-o", "json"});
    REQUIRE(json.code == 0);
    auto items = nlohmann::json::parse(json.out).at("items");
    REQUIRE(items.size() == 2);
    CHECK(items.at(1).at("cost").at("amount").get<double>() ==
          Approx(539.0 / 3600 * 9 * (2 * 0.031611 + 4 * 0.004237)));
}

TEST_CASE("delete deletes the PyTorchJob, waiting when asked", "[cluster][cli]") {
    FakeCluster cluster("running");
    auto run = cluster.run({"delete", "mnist-ddp", "-n", "ml-training", "--wait"});
    CHECK(run.code == 0);
    CHECK(run.out == "pytorchjob/mnist-ddp deleted\n");
    CHECK(cluster.calls().at(1) == std::vector<std::string>{"delete", "pytorchjobs.kubeflow.org",
                                                            "--wait=true", "-n", "ml-training",
                                                            "--", "mnist-ddp"});
    FakeCluster missing("not-found");
    CHECK(missing.run({"delete", "mnist-ddp", "-n", "ml-training"}).code == 3);
}

TEST_CASE("global flags reach every kubectl call", "[cluster][cli]") {
    FakeCluster cluster("running");
    auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training", "--context", "prod",
                            "--kubeconfig", "/tmp/kc", "--request-timeout", "20s"});
    REQUIRE(run.code == 0);
    for (const auto& call : cluster.calls()) {
        CAPTURE(call);
        CHECK(call.at(0) == "--context=prod");
        CHECK(call.at(1) == "--kubeconfig=/tmp/kc");
        CHECK(call.at(2) == "--request-timeout=20s");
    }
}

TEST_CASE("cluster failures give one line and the documented exit code", "[cluster][cli]") {
    struct Case {
        const char* scenario;
        int code;
        const char* message;
    };
    const Case cases[] = {
        {"not-found", 3,
         "kftrain: error: no PyTorchJob, TrainJob, TFJob, XGBoostJob or JAXJob named mnist-ddp in "
         "namespace ml-training "
         "(hint: check the name and the namespace (-n))\n"},
        {"context-missing", 4,
         "kftrain: error: reading mnist-ddp: context \"prod\" does not exist (hint: "
         "list the contexts with 'kubectl config get-contexts')\n"},
        {"unreachable", 4,
         "kftrain: error: reading mnist-ddp: Unable to connect to the server: dial tcp "
         "10.0.0.1:6443: i/o timeout (hint: the cluster is unreachable: check --context, "
         "--kubeconfig and the network, or run on this machine with --local)\n"},
        {"crd-missing", 4,
         "kftrain: error: reading mnist-ddp: this cluster serves no PyTorchJobs, "
         "TFJobs, XGBoostJobs, JAXJobs or TrainJobs (hint: install the Kubeflow Training "
         "Operator or Kubeflow Trainer v2, or run on this machine with --local)\n"},
        {"forbidden", 4,
         "(hint: your account lacks the RBAC permission for this in that namespace)\n"},
        {"malformed", 4,
         "kftrain: error: reading mnist-ddp: kubectl printed something that is not a "
         "JSON object\n"},
    };
    for (const auto& c : cases) {
        SECTION(c.scenario) {
            FakeCluster cluster(c.scenario);
            for (const char* verb : {"status", "describe", "wait", "logs"}) {
                CAPTURE(verb);
                auto run = cluster.run({verb, "mnist-ddp", "-n", "ml-training"});
                CHECK(run.code == c.code);
                CHECK(run.out == "");
                CHECK(contains(run.err, c.message));
                CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
            }
        }
    }
}

TEST_CASE("a missing kubectl is one line with exit code 4", "[cluster][cli]") {
    auto run = kftrain::test::run_kftrain({"status", "mnist-ddp"},
                                          {{"KFTRAIN_KUBECTL", "/nonexistent/kubectl"}});
    CHECK(run.code == 4);
    CHECK(run.err ==
          "kftrain: error: kubectl not found (/nonexistent/kubectl): install kubectl or point "
          "KFTRAIN_KUBECTL at it, or run the job on this machine with --local\n");
    // A file that is there but cannot run is named as such, not as missing.
    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/kubectl", "#!/bin/sh\n");
    auto plain = kftrain::test::run_kftrain({"status", "mnist-ddp"},
                                            {{"KFTRAIN_KUBECTL", dir + "/kubectl"}});
    CHECK(plain.code == 4);
    CHECK(plain.err == "kftrain: error: kubectl at " + dir +
                           "/kubectl is not executable: make it so (chmod +x) or point "
                           "KFTRAIN_KUBECTL at kubectl\n");
}

TEST_CASE("bad flags of the lifecycle verbs exit 2 and run no kubectl", "[cluster][cli]") {
    struct Case {
        std::vector<std::string> args;
        const char* message;
    };
    const Case cases[] = {
        {{"status", "x", "-o", "xml"}, "-o/--output: must be table, wide, json or yaml (got xml)"},
        {{"wait", "x", "--for", "done"},
         "--for: must be succeeded, running, created, suspended or admitted (got done)"},
        {{"wait", "x", "--timeout", "soon"},
         "--timeout: not a duration such as 90s, 1h30m or 500ms (got soon)"},
        {{"logs", "x", "--tail", "-5"}, "--tail: must be -1 (all) or a count >= 0 (got -5)"},
        {{"logs", "x", "--since", "yesterday"},
         "--since: not a duration such as 90s, 1h30m or 500ms (got yesterday)"},
        {{"logs", "x", "--replica", "worker 3"},
         "--replica: must be a type or a replica such as worker or worker-3 (got worker 3)"},
        {{"list", "-o", "csv"}, "-o/--output: must be table, wide, json or yaml (got csv)"},
        {{"status", "x", "--gpu", "b200"},
         "--gpu: built-in prices has no such GPU type (one of a100, h100, l4, t4, v100) (got "
         "b200)"},
        {{"status", "x", "--prices", "/nonexistent/prices.yaml"},
         "--prices: /nonexistent/prices.yaml: cannot read: No such file or directory"},
        {{"list", "--prices", "/nonexistent/prices.yaml"},
         "--prices: /nonexistent/prices.yaml: cannot read: No such file or directory"},
    };
    for (const auto& c : cases) {
        FakeCluster cluster("running");
        auto run = cluster.run(c.args);
        CAPTURE(c.args);
        CHECK(run.code == 2);
        CHECK(run.err == std::string("kftrain: error: ") + c.message + "\n");
        CHECK(cluster.calls().empty());
    }
}
