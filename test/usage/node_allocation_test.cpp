#include "usage/node_allocation.h"

#include <catch2/catch.hpp>

#include "support/test_data.h"

using kftrain::usage::add_pod_requests;
using kftrain::usage::amount_of;
using kftrain::usage::read_nodes;
using kftrain::usage::shown_resource;

namespace {

constexpr double k_gi = 1024.0 * 1024.0 * 1024.0;

}  // namespace

TEST_CASE("the recorded node's allocatable reads as cores and bytes, without pods or storage",
          "[usage]") {
    auto nodes = read_nodes(kftrain::test::read_test_data("kube/nodes-kfe-mini.json"));
    REQUIRE(nodes);
    REQUIRE(nodes->size() == 1);
    const auto& node = nodes->front();
    CHECK(node.name == "kfe-mini");
    CHECK(node.gpu_product.empty());
    CHECK(amount_of(node.allocatable, "cpu") == Approx(2));
    CHECK(amount_of(node.allocatable, "memory") == Approx(24629000.0 * 1024));
    CHECK(node.allocatable.size() == 2);  // pods, ephemeral-storage and hugepages left out
    CHECK_FALSE(node.allocated);          // unknown until the pods are read
}

TEST_CASE(
    "a node's allocated is its holding pods' requests: extended resources, init "
    "containers, no finished or unscheduled pods",
    "[usage]") {
    auto nodes = read_nodes(kftrain::test::read_test_data("kube/nodes-gpu.json"));
    REQUIRE(nodes);
    REQUIRE(
        add_pod_requests(*nodes, kftrain::test::read_test_data("kube/pods-all-namespaces.json")));
    const auto& gpu = nodes->at(0);
    REQUIRE(gpu.name == "gpu-node-1");
    CHECK(gpu.gpu_product == "NVIDIA-A100-SXM4-40GB");
    CHECK(amount_of(gpu.allocatable, "nvidia.com/gpu") == Approx(4));
    CHECK(amount_of(gpu.allocatable, "example.com/fpga") == Approx(2));
    REQUIRE(gpu.allocated);
    // trainer-gpu-0: max(2 + 0.5, init 4) cores, 8Gi + 512Mi, 1 GPU; fpga-user (Pending on
    // the node): 1 core, 1 fpga. finished-gpu and failed-gpu hold nothing; unscheduled has no node.
    CHECK(amount_of(*gpu.allocated, "cpu") == Approx(5));
    CHECK(amount_of(*gpu.allocated, "memory") == Approx(8.5 * k_gi));
    CHECK(amount_of(*gpu.allocated, "nvidia.com/gpu") == Approx(1));
    CHECK(amount_of(*gpu.allocated, "example.com/fpga") == Approx(1));
    CHECK(gpu.pods == 2);
    const auto& mini = nodes->at(1);
    CHECK(amount_of(*mini.allocated, "cpu") == Approx(0.1));  // the spin pod
    CHECK(mini.pods == 1);
}

TEST_CASE("top nodes shows cpu, memory and domain-qualified extended resources", "[usage]") {
    CHECK(shown_resource("cpu"));
    CHECK(shown_resource("memory"));
    CHECK(shown_resource("nvidia.com/gpu"));
    CHECK(shown_resource("example.com/fpga"));
    CHECK_FALSE(shown_resource("pods"));
    CHECK_FALSE(shown_resource("ephemeral-storage"));
    CHECK_FALSE(shown_resource("hugepages-2Mi"));
    CHECK_FALSE(shown_resource("kubernetes.io/batch-cpu"));
    CHECK_FALSE(shown_resource("requests.kubernetes.io/x"));
}

TEST_CASE("pods that cannot be read leave allocated unknown", "[usage]") {
    auto nodes = read_nodes(kftrain::test::read_test_data("kube/nodes-kfe-mini.json"));
    REQUIRE(nodes);
    CHECK_FALSE(add_pod_requests(*nodes, "Error from server (Forbidden)"));
    CHECK_FALSE(nodes->front().allocated);
}
