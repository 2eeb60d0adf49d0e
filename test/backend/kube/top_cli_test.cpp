// `kftrain top` against the fake kubectl: a job's pods, the kubelets' summaries or the metrics
// API, and the nodes' allocation.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <nlohmann/json.hpp>

#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/paths.h"
#include "util/subprocess.h"

using kftrain::test::contains;
using kftrain::test::FakeCluster;
using nlohmann::json;

namespace {

// The `get --raw PATH` calls a run made.
std::vector<std::string> raw_reads(const FakeCluster& cluster) {
    std::vector<std::string> paths;
    for (const auto& call : cluster.calls()) {
        auto raw = std::find(call.begin(), call.end(), "--raw");
        if (raw != call.end() && raw + 1 != call.end()) {
            paths.push_back(*(raw + 1));
        }
    }
    std::sort(paths.begin(), paths.end());
    return paths;
}

constexpr const char* k_top_table =
    "REPLICA   NODE                CPU    CPU REQ/LIM  MEMORY   MEM REQ/LIM  RESTARTS  GPUS\n"
    "master-0  gke-ml-pool-1-a1b2  1500m  2/2          3.8Gi !  4Gi/4Gi      0         0\n"
    "worker-0  gke-ml-pool-1-c0d4  1200m  2/2          1Gi      4Gi/4Gi      0         0\n"
    "worker-1  gke-ml-pool-1-c1d4  800m   2/2          512Mi    4Gi/4Gi      0         0\n"
    "! working set at or above 90% of the memory limit: at risk of being OOM-killed\n";

}  // namespace

TEST_CASE(
    "top shows each replica's node, CPU and memory against request and limit, and marks "
    "the one near its memory limit",
    "[cluster][cli][top]") {
    FakeCluster cluster("top-running");
    auto run = cluster.run({"top", "mnist-ddp", "-n", "ml-training"});
    CHECK(run.err == "");
    CHECK(run.code == 0);
    CHECK(run.out == k_top_table);
}

TEST_CASE("top reads one kubelet summary per node, after one pod list", "[cluster][cli][top]") {
    FakeCluster cluster("top-running");
    REQUIRE(cluster.run({"top", "mnist-ddp", "-n", "ml-training"}).code == 0);
    CHECK(raw_reads(cluster) ==
          std::vector<std::string>{
              "/api/v1/nodes/gke-ml-pool-1-a1b2/proxy/stats/summary",
              "/api/v1/nodes/gke-ml-pool-1-c0d4/proxy/stats/summary",
              "/api/v1/nodes/gke-ml-pool-1-c1d4/proxy/stats/summary",
              "/apis/metrics.k8s.io/v1beta1/namespaces/ml-training/pods?labelSelector="
              "training.kubeflow.org/job-name%3Dmnist-ddp"});
    int pod_lists = 0;
    for (const auto& call : cluster.calls()) {
        pod_lists += call.size() > 1 && call[0] == "get" && call[1] == "pods" ? 1 : 0;
    }
    CHECK(pod_lists == 1);
    CHECK(cluster.calls().size() == 6);  // the job, its pods, the metrics API, three nodes
}

TEST_CASE("top -o json gives cores and bytes, and null where a figure is unknown",
          "[cluster][cli][top]") {
    FakeCluster cluster("top-summary-forbidden");
    auto run = cluster.run({"top", "mnist-ddp", "-n", "ml-training", "-o", "json"});
    REQUIRE(run.code == 0);
    const json usage = json::parse(run.out);
    CHECK(usage["name"] == "mnist-ddp");
    CHECK(usage["namespace"] == "ml-training");
    CHECK(usage["source"] == "kubelet summary");
    const json& master = usage["replicas"][0];
    CHECK(master["name"] == "master-0");
    CHECK(master["node"] == "gke-ml-pool-1-a1b2");
    CHECK(master["cpu"]["used"].get<double>() == Approx(1.5));
    CHECK(master["cpu"]["request"].get<double>() == Approx(2));
    CHECK(master["memory"]["limit"].get<double>() == Approx(4.0 * 1024 * 1024 * 1024));
    CHECK(master["oomRisk"] == true);
    CHECK(master["gpus"] == 0);
    const json& unread = usage["replicas"][2];
    CHECK(unread["name"] == "worker-1");
    CHECK(unread["cpu"]["used"].is_null());
    CHECK(unread["memory"]["used"].is_null());
    CHECK(unread["oomRisk"] == false);
    REQUIRE(usage["warnings"].size() == 1);
    CHECK(contains(usage["warnings"][0].get<std::string>(), "gke-ml-pool-1-c1d4"));
}

TEST_CASE("top with a kubelet summary RBAC forbids warns, names the node, and shows \"-\"",
          "[cluster][cli][top]") {
    FakeCluster cluster("top-summary-forbidden");
    auto run = cluster.run({"top", "mnist-ddp", "-n", "ml-training"});
    CHECK(run.code == 0);
    CHECK(contains(run.out,
                   "worker-1  gke-ml-pool-1-c1d4  -      2/2          -        4Gi/4Gi      0"));
    CHECK(contains(run.out, "worker-0  gke-ml-pool-1-c0d4  1200m"));
    CHECK(contains(run.err,
                   "kftrain: warning: node gke-ml-pool-1-c1d4: could not read its kubelet "
                   "summary, RBAC forbids get on nodes/proxy (worker-1 shown as \"-\"): Error "
                   "from server (Forbidden)"));
}

TEST_CASE("top uses the metrics API in one call where the cluster serves it",
          "[cluster][cli][top]") {
    FakeCluster cluster("top-metrics");
    auto run = cluster.run({"top", "mnist-ddp", "-n", "ml-training", "-o", "json"});
    REQUIRE(run.code == 0);
    const json usage = json::parse(run.out);
    CHECK(usage["source"] == "metrics.k8s.io");
    CHECK(usage["replicas"][2]["cpu"]["used"].get<double>() == Approx(0.8));
    CHECK(usage["warnings"].empty());
    CHECK(raw_reads(cluster).size() == 1);  // no kubelet summary
}

TEST_CASE("top of a job that does not exist exits 3", "[cluster][cli][top]") {
    FakeCluster cluster("not-found");
    auto run = cluster.run({"top", "mnist-ddp", "-n", "ml-training"});
    CHECK(run.code == 3);
    CHECK(contains(run.err, "kftrain: error: no PyTorchJob"));
    CHECK(run.out == "");
}

TEST_CASE("top of a job whose pods are not on a node yet warns instead of showing 0",
          "[cluster][cli][top]") {
    FakeCluster cluster("pending-unschedulable");
    auto run = cluster.run({"top", "mnist-ddp", "-n", "ml-training", "-o", "json"});
    REQUIRE(run.code == 0);
    const json usage = json::parse(run.out);
    REQUIRE_FALSE(usage["replicas"].empty());
    for (const json& replica : usage["replicas"]) {
        CHECK(replica["cpu"]["used"].is_null());
    }
    CHECK(contains(run.err, "not on a node yet (Pending)"));
    CHECK(raw_reads(cluster).empty());
}

TEST_CASE("top without a job or nodes, or with -o xml, is bad input", "[cluster][cli][top]") {
    FakeCluster cluster("top-running");
    auto bare = cluster.run({"top"});
    CHECK(bare.code == 2);
    CHECK(contains(bare.err, "top: name a job (kftrain top JOB) or the nodes (kftrain top nodes)"));
    auto xml = cluster.run({"top", "mnist-ddp", "-o", "xml"});
    CHECK(xml.code == 2);
    CHECK(contains(xml.err, "-o/--output: must be table, json or yaml (got xml)"));
    CHECK(cluster.calls().empty());
}

TEST_CASE(
    "top nodes shows allocated of allocatable: CPU, memory, GPUs, other extended "
    "resources and the GPU product",
    "[cluster][cli][top]") {
    FakeCluster cluster("top-nodes");
    auto run = cluster.run({"top", "nodes"});
    CHECK(run.err == "");
    REQUIRE(run.code == 0);
    CHECK(run.out ==
          "NODE        CPU          MEMORY            GPU        GPU PRODUCT            "
          "EXAMPLE.COM/FPGA\n"
          "gpu-node-1  5/8 (62%)    8.5Gi/32Gi (27%)  1/4 (25%)  NVIDIA-A100-SXM4-40GB  1/2 (50%)\n"
          "kfe-mini    100m/2 (5%)  16Mi/23.5Gi (0%)  -          -                      -\n"
          "(allocated/allocatable: the requests of the pods on the node, as kubectl describe "
          "node counts them)\n");
    const auto calls = cluster.calls();
    REQUIRE(calls.size() == 2);
    CHECK(std::find(calls.begin(), calls.end(),
                    std::vector<std::string>{"get", "pods", "-A", "-o", "json",
                                             "--field-selector=status.phase!=Succeeded,"
                                             "status.phase!=Failed"}) != calls.end());
}

TEST_CASE("top nodes -o json gives base units per resource", "[cluster][cli][top]") {
    FakeCluster cluster("top-nodes");
    auto run = cluster.run({"top", "nodes", "-o", "json"});
    REQUIRE(run.code == 0);
    const json nodes = json::parse(run.out)["nodes"];
    CHECK(nodes[0]["name"] == "gpu-node-1");
    CHECK(nodes[0]["gpuProduct"] == "NVIDIA-A100-SXM4-40GB");
    CHECK(nodes[0]["resources"]["nvidia.com/gpu"]["allocatable"].get<double>() == 4);
    CHECK(nodes[0]["resources"]["nvidia.com/gpu"]["allocated"].get<double>() == 1);
    CHECK(nodes[0]["resources"]["cpu"]["allocated"].get<double>() == Approx(5));
    CHECK(nodes[1]["resources"]["memory"]["allocatable"].get<double>() ==
          Approx(24629000.0 * 1024));
}

TEST_CASE("top nodes where listing every pod is forbidden warns and shows allocatable only",
          "[cluster][cli][top]") {
    FakeCluster cluster("top-nodes-pods-forbidden");
    auto run = cluster.run({"top", "nodes", "-o", "json"});
    REQUIRE(run.code == 0);
    const json nodes = json::parse(run.out)["nodes"];
    CHECK(nodes[0]["resources"]["nvidia.com/gpu"]["allocatable"].get<double>() == 4);
    CHECK(nodes[0]["resources"]["nvidia.com/gpu"]["allocated"].is_null());
    CHECK(contains(run.err,
                   "kftrain: warning: could not list the pods of every namespace, so what the "
                   "nodes have allocated is unknown (allocatable only): Error from server "
                   "(Forbidden)"));
}

TEST_CASE(
    "top of a job of 1024 replicas on 64 nodes is a handful of kubectl calls, not one per pod",
    "[cluster][cli][top]") {
    auto cluster = FakeCluster::many_replicas(1023);
    auto run = cluster.run({"top", "big", "-n", "ml-training", "-o", "json"});
    REQUIRE(run.code == 0);
    CHECK(json::parse(run.out)["replicas"].size() == 1024);
    // The job, its pods, the metrics API (not served here), and one summary per node (the fake
    // has none: each is a warning naming its node and a few of its replicas, never a 0).
    CHECK(cluster.calls().size() == 3 + 64);
    CHECK(contains(run.err, "kftrain: warning: node node-0: could not read its kubelet summary ("));
    CHECK(contains(run.err, "and 13 more shown as \"-\")"));
}

TEST_CASE("top --watch prints again until Ctrl-C, then exits 130", "[cluster][cli][top]") {
    FakeCluster cluster("top-running");
    kftrain::util::SpawnOptions options;
    options.argv = {
        kftrain::test::kftrain_binary(), "top", "mnist-ddp", "-n", "ml-training", "--watch"};
    options.env = cluster.env();
    options.stdout_to = kftrain::util::Redirect::pipe();
    options.stderr_to = kftrain::util::Redirect::null();
    auto process = kftrain::util::Process::spawn(options);
    REQUIRE(process.ok());
    // Two tables read: the loop runs (and catches Ctrl-C from its start).
    std::string out;
    char buffer[4096];
    while (std::count(out.begin(), out.end(), '!') < 4) {  // two rows and two notes
        ssize_t n = ::read(process->stdout_fd(), buffer, sizeof(buffer));
        REQUIRE(n > 0);
        out.append(buffer, static_cast<size_t>(n));
    }
    process->signal(SIGINT);
    auto status = process->wait();
    REQUIRE(status.ok());
    CHECK(status->as_shell_code() == 130);
    CHECK(contains(out, "master-0  gke-ml-pool-1-a1b2  1500m"));
}
