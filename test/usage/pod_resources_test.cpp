#include "usage/pod_resources.h"

#include <catch2/catch.hpp>

#include "support/test_data.h"

using kftrain::usage::amount_of;
using kftrain::usage::oom_risk;
using kftrain::usage::pod_resources;
using nlohmann::json;

namespace {

constexpr double k_mi = 1024.0 * 1024.0;

// A pod of these containers and init containers, each given as its resources.
json pod_of(const json& containers, const json& init = json::array()) {
    json pod = {{"spec", {{"containers", json::array()}, {"initContainers", json::array()}}}};
    for (const auto& resources : containers) {
        pod["spec"]["containers"].push_back({{"name", "c"}, {"resources", resources}});
    }
    for (const auto& resources : init) {
        pod["spec"]["initContainers"].push_back({{"name", "i"}, {"resources", resources}});
    }
    return pod;
}

}  // namespace

TEST_CASE("a recorded pod's requests and limits read as the API server stored them", "[usage]") {
    const auto asks =
        pod_resources(json::parse(kftrain::test::read_test_data("kube/pod-spin.json")));
    CHECK(amount_of(asks.requests, "cpu") == Approx(0.1));
    CHECK(amount_of(asks.limits, "cpu") == Approx(0.5));
    CHECK(amount_of(asks.requests, "memory") == Approx(16 * k_mi));
    CHECK(amount_of(asks.limits, "memory") == Approx(64 * k_mi));
    CHECK_FALSE(amount_of(asks.requests, "nvidia.com/gpu"));
}

TEST_CASE("a pod asks the sum of its containers or its largest init container, whichever is more",
          "[usage]") {
    const json pod = pod_of(
        json::array({{{"requests", {{"cpu", "2"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}}}},
                     {{"requests", {{"cpu", "500m"}, {"memory", "512Mi"}}}}}),
        json::array({{{"requests", {{"cpu", "4"}, {"memory", "256Mi"}}}},
                     {{"requests", {{"example.com/fpga", "1"}}}}}));
    const auto asks = pod_resources(pod);
    CHECK(amount_of(asks.requests, "cpu") == Approx(4));               // the init container's
    CHECK(amount_of(asks.requests, "memory") == Approx(1536 * k_mi));  // the containers' sum
    CHECK(amount_of(asks.requests, "nvidia.com/gpu") == Approx(1));
    CHECK(amount_of(asks.requests, "example.com/fpga") == Approx(1));  // only an init asks it
}

TEST_CASE("a pod is limited in a resource only when every container limits it", "[usage]") {
    const json pod = pod_of(json::array(
        {{{"limits", {{"cpu", "1"}, {"memory", "1Gi"}}}}, {{"limits", {{"memory", "1Gi"}}}}}));
    const auto asks = pod_resources(pod);
    CHECK_FALSE(amount_of(asks.limits, "cpu"));  // the second container may use any
    CHECK(amount_of(asks.limits, "memory") == Approx(2048 * k_mi));
}

TEST_CASE("a sidecar (an init container that keeps running) adds to what the pod asks", "[usage]") {
    json pod = pod_of(json::array({{{"requests", {{"cpu", "1"}}}}}));
    pod["spec"]["initContainers"].push_back({{"name", "proxy"},
                                             {"restartPolicy", "Always"},
                                             {"resources", {{"requests", {{"cpu", "250m"}}}}}});
    CHECK(amount_of(pod_resources(pod).requests, "cpu") == Approx(1.25));
}

TEST_CASE("the OOM-risk mark is at 90% of the memory limit and never without one", "[usage]") {
    struct Case {
        std::optional<double> used;
        std::optional<double> limit;
        bool marked;
    };
    const Case cases[] = {
        {89.9, 100, false},         {90, 100, true}, {120, 100, true}, {90, std::nullopt, false},
        {std::nullopt, 100, false}, {0, 0, false},
    };
    for (const auto& c : cases) {
        INFO((c.used ? std::to_string(*c.used) : "?")
             << " of " << (c.limit ? std::to_string(*c.limit) : "-"));
        CHECK(oom_risk(c.used, c.limit) == c.marked);
    }
}
