#include "usage/pod_metrics.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/test_data.h"

using kftrain::usage::read_kubelet_summary;
using kftrain::usage::read_pod_metrics;
using nlohmann::json;

TEST_CASE("a recorded kubelet summary gives the spinning pod's CPU and working set", "[usage]") {
    // The pod spins one CPU at its 500m limit (test/data/kube/pod-spin.json).
    auto pods =
        read_kubelet_summary(kftrain::test::read_test_data("kube/kubelet-summary-kfe-mini.json"));
    REQUIRE(pods);
    auto spin = pods->find({"default", "spin"});
    REQUIRE(spin != pods->end());
    REQUIRE(spin->second.cpu_cores);
    CHECK(*spin->second.cpu_cores == Approx(0.501589352));
    REQUIRE(spin->second.memory_bytes);
    CHECK(*spin->second.memory_bytes == Approx(479232));
}

TEST_CASE("a summary's pods are told apart by namespace and their containers summed", "[usage]") {
    const json summary = {
        {"node", {{"nodeName", "n1"}}},
        {"pods",
         {{{"podRef", {{"name", "p"}, {"namespace", "a"}}},
           {"containers",
            {{{"name", "x"},
              {"cpu", {{"usageNanoCores", 250000000}}},
              {"memory", {{"workingSetBytes", 1000}}}},
             {{"name", "y"},
              {"cpu", {{"usageNanoCores", 750000000}}},
              {"memory", {{"workingSetBytes", 24}}}}}}},
          {{"podRef", {{"name", "p"}, {"namespace", "b"}}},
           {"containers",
            {{{"name", "x"}, {"memory", {{"workingSetBytes", 5}}}}}}}}}};  // no CPU figure yet
    auto pods = read_kubelet_summary(summary.dump());
    REQUIRE(pods);
    CHECK(pods->at({"a", "p"}).cpu_cores == Approx(1.0));
    CHECK(pods->at({"a", "p"}).memory_bytes == Approx(1024));
    CHECK_FALSE(pods->at({"b", "p"}).cpu_cores);  // unknown, never 0
    CHECK(pods->at({"b", "p"}).memory_bytes == Approx(5));
}

TEST_CASE("text that is no kubelet summary is an error, not an empty reading", "[usage]") {
    CHECK_FALSE(read_kubelet_summary("<html>403</html>"));
    CHECK_FALSE(read_kubelet_summary(R"({"node": {}})"));
    CHECK_FALSE(read_pod_metrics(R"({"kind": "Status"})"));
}

TEST_CASE("the metrics API's quantities are read in base units", "[usage]") {
    auto pods = read_pod_metrics(kftrain::test::read_test_data("kube/pod-metrics-mnist-ddp.json"));
    REQUIRE(pods);
    const auto& master = pods->at({"ml-training", "mnist-ddp-master-0"});
    CHECK(master.cpu_cores == Approx(1.5));
    CHECK(master.memory_bytes == Approx(3.8 * 1024 * 1024 * 1024).epsilon(0.001));
}
