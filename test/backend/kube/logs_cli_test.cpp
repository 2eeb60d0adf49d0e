#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/test_data.h"

using kftrain::test::contains;
using kftrain::test::FakeCluster;

TEST_CASE(
    "logs of 1 master and 8 workers take two kubectl calls side by side, the workers' one "
    "batch, grouped in replica order",
    "[cluster][cli][logs]") {
    FakeCluster cluster("big-logs");
    auto run = cluster.run({"logs", "bigrun", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(run.err == "");
    CHECK(cluster.max_concurrent_logs() == 2);
    std::vector<std::vector<std::string>> reads;
    for (const auto& call : cluster.calls()) {
        if (call.at(0) == "logs") {
            reads.push_back(call);
        }
    }
    REQUIRE(reads.size() == 2);
    std::sort(reads.begin(), reads.end());  // side by side: in either order
    CHECK(reads[1] == std::vector<std::string>{"logs", "bigrun-master-0", "-c", "pytorch", "-n",
                                               "ml-training"});
    CHECK(reads[0] ==
          std::vector<std::string>{"logs", "-l",
                                   "training.kubeflow.org/job-name=bigrun,training.kubeflow.org/"
                                   "replica-type=worker,training.kubeflow.org/replica-index in "
                                   "(0,1,2,3,4,5,6,7)",
                                   "--prefix", "-c", "pytorch", "--tail=-1", "-n", "ml-training"});
    std::string expected =
        "master-0 | epoch 1/3 step 10/469 loss 0.9000 acc 50.0% 2000 samples/s ETA 10m0s\n"
        "master-0 | master line 2\n";
    for (int i = 0; i < 8; ++i) {
        expected += "worker-" + std::to_string(i) + " | worker " + std::to_string(i) + " line 1\n";
        expected += "worker-" + std::to_string(i) + " | worker " + std::to_string(i) + " line 2\n";
    }
    CHECK(run.out == expected);
}

TEST_CASE("logs --raw keeps the trainer's JSON, --replica picks replicas", "[cluster][cli][logs]") {
    FakeCluster cluster("big-logs");
    auto raw =
        cluster.run({"logs", "bigrun", "-n", "ml-training", "--raw", "--replica", "master-0"});
    REQUIRE(raw.code == 0);
    CHECK(contains(raw.out, "master-0 | {\"event\":\"progress\""));
    CHECK_FALSE(contains(raw.out, "worker-"));
    auto workers = cluster.run({"logs", "bigrun", "-n", "ml-training", "--replica", "worker"});
    CHECK_FALSE(contains(workers.out, "master-0"));
    CHECK(contains(workers.out, "worker-7 | worker 7 line 2\n"));
    auto missing = cluster.run({"logs", "bigrun", "-n", "ml-training", "--replica", "worker-9"});
    CHECK(missing.code == 3);
    CHECK(contains(missing.err,
                   "--replica: matches no replica of bigrun by name or type; it has "
                   "master-0, worker-0, "));
    CHECK(contains(missing.err, ", worker-7 (got worker-9)\n"));
}

TEST_CASE("logs passes --tail, --since, --timestamps and --previous to kubectl",
          "[cluster][cli][logs]") {
    FakeCluster cluster("crashloop");
    auto run = cluster.run({"logs", "mnist-ddp", "-n", "ml-training", "--replica", "worker-1",
                            "--previous", "--tail", "2", "--since", "1h", "--timestamps"});
    REQUIRE(run.code == 0);
    CHECK(run.out ==
          "worker-1 | 2024-05-01T10:00:00.000000000Z Traceback (most recent call last):\n"
          "worker-1 | 2024-05-01T10:00:01.000000000Z RuntimeError: CUDA error: out of memory\n");
    bool seen = false;
    for (const auto& call : cluster.calls()) {
        if (call.at(0) == "logs") {
            seen = true;
            CHECK(call == std::vector<std::string>{"logs", "mnist-ddp-worker-1", "-c", "pytorch",
                                                   "--tail=2", "--since=1h", "--timestamps", "-p",
                                                   "-n", "ml-training"});
        }
    }
    CHECK(seen);
}

TEST_CASE("logs --previous reads only replicas that restarted, as locally",
          "[cluster][cli][logs]") {
    FakeCluster cluster("crashloop");
    auto none = cluster.run(
        {"logs", "mnist-ddp", "-n", "ml-training", "--previous", "--replica", "master"});
    CHECK(none.code == 3);
    CHECK(none.out.empty());
    CHECK(none.err ==
          "kftrain: master-0: has not restarted: no previous attempt\n"
          "kftrain: error: --previous: no replica of mnist-ddp matching master has restarted\n");
    for (const auto& call : cluster.calls()) {
        CHECK(call.at(0) != "logs");  // kubectl would answer BadRequest for each
    }
    auto some = cluster.run({"logs", "mnist-ddp", "-n", "ml-training", "--previous"});
    CHECK(some.code == 0);
    CHECK(contains(some.out, "worker-1 | RuntimeError: CUDA error: out of memory\n"));
    CHECK(contains(some.err, "kftrain: worker-0: has not restarted: no previous attempt\n"));
}

TEST_CASE("a replica whose logs fail is reported on stderr, the others print",
          "[cluster][cli][logs]") {
    FakeCluster cluster("big-one-fails");
    auto run = cluster.run({"logs", "bigrun", "-n", "ml-training"});
    CHECK(run.code == 4);
    CHECK(contains(run.out, "worker-2 | worker 2 line 2\nworker-4 | worker 4 line 1\n"));
    CHECK(contains(run.err,
                   "kftrain: worker-3: reading the log of bigrun-worker-3: Error from "
                   "server: Get \"https://10.128.0.40:10250/containerLogs/"));
    CHECK(contains(run.err, "kftrain: error: could not read the logs of 1 of 9 replicas\n"));
}

TEST_CASE("logs of pending replicas say they have not started", "[cluster][cli][logs]") {
    FakeCluster cluster("pending-imagepull");
    auto run = cluster.run({"logs", "mnist-ddp", "-n", "ml-training"});
    CHECK(run.code == 0);
    CHECK(run.out == "");
    CHECK(contains(run.err,
                   "kftrain: master-0: has not started yet (Pending: ImagePullBackOff); no logs "
                   "yet\n"));
    CHECK(cluster.logs_calls("mnist-ddp-master-0").empty());
}

TEST_CASE("logs -f waits for pending pods, follows restarts and ends with the job",
          "[cluster][cli][logs]") {
    FakeCluster cluster("follow");
    auto run =
        cluster.run({"logs", "mnist-ddp", "-n", "ml-training", "-f", "--poll-interval", "100ms"});
    CHECK(run.code == 0);
    CHECK(contains(run.err, "kftrain: master-0: waiting for it to start (ContainerCreating)\n"));
    CHECK(contains(run.out, "master-0 | epoch 2/3 step 120/469 loss 0.3121"));
    CHECK(contains(run.out, "worker-1 | worker 1 ready\n"));
    CHECK(contains(run.out, "worker-0 | worker 0 second container\n"));
    CHECK(cluster.follow_calls("mnist-ddp-worker-0").size() == 2);
    CHECK(cluster.follow_calls("mnist-ddp-master-0").size() == 1);
    // Every read while it ran followed; those after it ended (with --timestamps) recorded it.
    for (const auto& call : cluster.calls()) {
        if (call.at(0) == "logs" &&
            std::find(call.begin(), call.end(), "--timestamps") == call.end()) {
            CHECK(call.at(4) == "-f");
        }
    }
}

TEST_CASE("logs -f stops following a pod that outlives its job", "[cluster][cli][logs]") {
    // worker-1's container still runs when the job has Succeeded (cleanPodPolicy None), so
    // its kubectl logs -f never ends by itself.
    FakeCluster cluster("follow-lingers");
    auto run =
        cluster.run({"logs", "mnist-ddp", "-n", "ml-training", "-f", "--poll-interval", "100ms"});
    CHECK(run.code == 0);
    CHECK(contains(run.out, "master-0 | master done\n"));
    CHECK(contains(run.out, "worker-1 | worker 1 still busy\n"));
    CHECK(run.err ==
          "kftrain: worker-1: still running after the job ended; stopped following it\n");
}

TEST_CASE("wait prints each state and exits 0 when the job succeeds", "[cluster][cli][wait]") {
    FakeCluster cluster("wait-succeeds");
    auto run = cluster.run({"wait", "mnist-ddp", "-n", "ml-training", "--interval", "10ms"});
    CHECK(run.code == 0);
    CHECK(contains(run.out, "pytorchjob/mnist-ddp: Created (PyTorchJobCreated)"));
    CHECK(contains(run.out, "pytorchjob/mnist-ddp: Running (PyTorchJobRunning)"));
    CHECK(contains(run.out, "pytorchjob/mnist-ddp: Succeeded (PyTorchJobSucceeded)"));
    CHECK(run.out.find("Running") < run.out.find("Succeeded"));
}

TEST_CASE("wait exits 1 as soon as the job fails", "[cluster][cli][wait]") {
    FakeCluster cluster("wait-fails");
    auto run = cluster.run({"wait", "mnist-ddp", "-n", "ml-training", "--interval", "10ms"});
    CHECK(run.code == 1);
    CHECK(contains(run.out, "  master-0: Failed (OOMKilled, exit code 137)\n"));
    CHECK(contains(run.err,
                   "kftrain: error: pytorchjob/mnist-ddp failed: Failed "
                   "(PyTorchJobFailed): PyTorchJob mnist-ddp is failed because 1 "
                   "Master replica(s) failed.\n"));
}

TEST_CASE("wait --for running is met by a running job", "[cluster][cli][wait]") {
    FakeCluster cluster("wait-succeeds");
    auto run = cluster.run(
        {"wait", "mnist-ddp", "-n", "ml-training", "--for", "running", "--interval", "10ms"});
    CHECK(run.code == 0);
    CHECK_FALSE(contains(run.out, "Succeeded"));
}

TEST_CASE("wait times out with exit 5 and not-found exits 3", "[cluster][cli][wait]") {
    FakeCluster stuck("pending-init");
    auto run = stuck.run(
        {"wait", "mnist-ddp", "-n", "ml-training", "--timeout", "300ms", "--interval", "50ms"});
    CHECK(run.code == 5);
    // The deadline falls between two looks at the job or during one (kubectl is stopped then).
    CHECK(contains(run.err, "kftrain: error: timed out after 300ms waiting for "));
    CHECK(contains(run.err, "mnist-ddp to be succeeded ("));
    FakeCluster missing("not-found");
    CHECK(missing.run({"wait", "mnist-ddp", "-n", "ml-training"}).code == 3);
}

TEST_CASE("submit --wait exits with the job's result", "[cluster][cli][wait]") {
    std::string file = std::string(kftrain::test::source_dir()) + "/examples/mnist-ddp.yaml";
    FakeCluster good("submit-succeeds");
    auto ok = good.run({"submit", "-f", file, "-n", "ml-training", "--wait"});
    CHECK(ok.code == 0);
    CHECK(contains(ok.out, "submitted\n"));
    CHECK(contains(ok.out, ": Succeeded (PyTorchJobSucceeded)"));
    REQUIRE(good.applied().size() == 1);
    FakeCluster bad("submit-fails");
    CHECK(bad.run({"submit", "-f", file, "-n", "ml-training", "--wait"}).code == 1);
}

TEST_CASE("a log the kubelet no longer has is a notice, never a line the program printed",
          "[cluster][cli][logs]") {
    const std::string dir = kftrain::test::make_temp_dir();
    nlohmann::json scenario =
        nlohmann::json::parse(kftrain::test::read_test_data("kube/scenarios/running.json"));
    scenario["logs"]["mnist-ddp-master-0"] = {
        "unable to retrieve container logs for containerd://eccd2500eeb2"};
    kftrain::test::write_file(dir + "/scenario.json", scenario.dump());
    FakeCluster cluster(dir + "/scenario.json");
    auto run = cluster.run({"logs", "mnist-ddp", "-n", "ml-training", "--replica", "master"});
    CHECK(run.code == 0);
    CHECK(run.out == "");
    CHECK(contains(run.err,
                   "kftrain: master-0: its log is gone: the kubelet no longer keeps that "
                   "container's\n"));
}
