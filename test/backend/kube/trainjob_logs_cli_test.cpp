#include <catch2/catch.hpp>

#include "support/fake_cluster.h"

using kftrain::test::contains;
using kftrain::test::FakeCluster;

namespace {

using Argv = std::vector<std::string>;

const char* const k_node0 = "mnist-trainjob-node-0-0-x7k2p";
const char* const k_node1 = "mnist-trainjob-node-0-1-q9w4m";

}  // namespace

TEST_CASE("logs of a TrainJob are prefixed node-0, node-1 and read concurrently",
          "[cluster][cli][trainjob][logs]") {
    FakeCluster cluster("trainjob-running");
    auto run = cluster.run({"logs", "mnist-trainjob", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(run.err == "");
    CHECK(run.out ==
          "node-0   | Loading MNIST from /data/mnist\n"
          "node-0   | start: model mnist_cnn dataset mnist 3 epochs batch 64 (global 128) lr 0.01 "
          "backend gloo 2 threads 60000 samples 469 steps/epoch\n"
          "node-0   | epoch 2/3 step 120/469 loss 0.3121 acc 91.2% 1234 samples/s ETA 1m40s\n"
          "node-1   | node 1 ready\n"
          "node-1   | start: model mnist_cnn dataset mnist 3 epochs\n");
    CHECK(cluster.logs_calls(k_node1) ==
          std::vector<Argv>{{"logs", k_node1, "-c", "node", "-n", "ml-training"}});
}

TEST_CASE("a node's log prefix is its completion index, not its pod's suffix",
          "[cluster][cli][trainjob][logs]") {
    FakeCluster cluster("trainjob-running-unordered");  // node-1's pod name sorts first
    auto run = cluster.run({"logs", "mnist-trainjob", "-n", "ml-training", "--replica", "node-0"});
    REQUIRE(run.code == 0);
    CHECK(run.out.rfind("node-0   | Loading MNIST from /data/mnist\n", 0) == 0);
    CHECK_FALSE(contains(run.out, "node-1"));
    CHECK(cluster.logs_calls("mnist-trainjob-node-0-1-b2c4d").empty());
}

TEST_CASE("logs --replica node-1 --previous reads the crashed container",
          "[cluster][cli][trainjob][logs]") {
    FakeCluster cluster("trainjob-crashloop");
    auto run = cluster.run(
        {"logs", "mnist-trainjob", "-n", "ml-training", "--replica", "node-1", "--previous"});
    REQUIRE(run.code == 0);
    CHECK(run.out ==
          "node-1   | node 1 starting\n"
          "node-1   | Traceback (most recent call last):\n"
          "node-1   | RuntimeError: connection to node-0 lost\n");
    CHECK(cluster.logs_calls(k_node1) ==
          std::vector<Argv>{{"logs", k_node1, "-c", "node", "-p", "-n", "ml-training"}});
    auto missing =
        cluster.run({"logs", "mnist-trainjob", "-n", "ml-training", "--replica", "node-2"});
    CHECK(missing.code == 3);
    CHECK(missing.err ==
          "kftrain: error: --replica: matches no replica of mnist-trainjob by name or type; it "
          "has node-0, node-1 (got node-2)\n");
}

TEST_CASE("an initializer step's log is prefixed with the step's name",
          "[cluster][cli][trainjob][logs]") {
    FakeCluster cluster("trainjob-initializer");
    auto run = cluster.run({"logs", "mnist-trainjob", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(run.out ==
          "dataset-initializer | Downloading hf://ylecun/mnist to /workspace/dataset\n"
          "dataset-initializer | Dataset ready: 70000 examples\n");
    CHECK(cluster.logs_calls("mnist-trainjob-dataset-initializer-0-0-m3n5p").at(0).at(3) ==
          "dataset-initializer");
    auto step = cluster.run(
        {"logs", "mnist-trainjob", "-n", "ml-training", "--replica", "dataset-initializer"});
    CHECK(step.code == 0);
    CHECK(step.out == run.out);
}

TEST_CASE("logs -f follows a TrainJob's steps and nodes from pending, across a restart, to the end",
          "[cluster][cli][trainjob][logs]") {
    const Argv follow = {"logs", "mnist-trainjob",  "-n",   "ml-training",
                         "-f",   "--poll-interval", "100ms"};
    FakeCluster cluster("trainjob-lifecycle");
    auto run = cluster.run(follow);
    CHECK(run.code == 0);
    CHECK(contains(run.err, "kftrain: node-0: waiting for it to start (ContainerCreating)\n"));
    CHECK(contains(run.out, "node-0   | epoch 2/3 step 120/469 loss 0.3121"));
    CHECK(contains(run.out, "node-1   | node 1 ready\n"));
    CHECK(contains(run.out, "node-1   | node 1 second container\n"));
    CHECK(cluster.follow_calls(k_node1).size() == 2);  // again after its restart
    CHECK(cluster.follow_calls(k_node0) ==
          std::vector<Argv>{{"logs", k_node0, "-c", "node", "-f", "-n", "ml-training"}});
    FakeCluster initialized("trainjob-init-lifecycle");  // the dataset initializer runs first
    auto steps = initialized.run(follow);
    CHECK(steps.code == 0);
    CHECK(contains(steps.out, "dataset-initializer | Dataset ready: 70000 examples\n"));
    CHECK(contains(steps.out, "node-1   | node 1 ready\n"));
}

TEST_CASE("wait follows a TrainJob to Succeeded, and exits 1 when its deadline passes",
          "[cluster][cli][trainjob][wait]") {
    FakeCluster good("trainjob-lifecycle");
    auto ok = good.run({"wait", "mnist-trainjob", "-n", "ml-training", "--interval", "10ms"});
    CHECK(ok.code == 0);
    CHECK(ok.out ==
          "trainjob/mnist-trainjob: Created\n"
          "trainjob/mnist-trainjob: Running\n"
          "trainjob/mnist-trainjob: Succeeded (AllJobsCompleted): jobset completed successfully\n");
    FakeCluster late("trainjob-wait-deadline");
    auto failed = late.run({"wait", "mnist-trainjob", "-n", "ml-training", "--interval", "10ms"});
    CHECK(failed.code == 1);
    CHECK(failed.err ==
          "kftrain: error: trainjob/mnist-trainjob failed: Failed (DeadlineExceeded): TrainJob "
          "exceeded its active deadline\n");
    FakeCluster suspended("trainjob-suspended");
    auto held =
        suspended.run({"wait", "mnist-trainjob", "-n", "ml-training", "--for", "suspended"});
    CHECK(held.code == 0);
    CHECK(held.out == "trainjob/mnist-trainjob: Suspended (Suspended): TrainJob is suspended\n");
    FakeCluster missing("trainjob-not-found");
    CHECK(missing.run({"wait", "mnist-trainjob", "-n", "ml-training"}).code == 3);
}
