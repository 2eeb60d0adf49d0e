#include "doctor/queue_fit.h"

#include <catch2/catch.hpp>

#include "manifest/k8s/quantity.h"

namespace kftrain::doctor {
namespace {

using nlohmann::json;

constexpr double k_gi = 1024.0 * 1024 * 1024;

// A ClusterQueue "gpu" of one resource group: flavor a100 with cpu 32, memory 256Gi and 8
// GPUs (+4 borrowing), 24 CPUs, 96Gi and 6 GPUs reserved; in a cohort when cohort is set.
json gpu_queue(const std::string& cohort = "") {
    json cq = json::parse(R"({
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "gpu"},
        "spec": {
            "resourceGroups": [{
                "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                "flavors": [{
                    "name": "a100",
                    "resources": [
                        {"name": "cpu", "nominalQuota": 32},
                        {"name": "memory", "nominalQuota": "256Gi"},
                        {"name": "nvidia.com/gpu", "nominalQuota": 8, "borrowingLimit": 4}
                    ]
                }]
            }]
        },
        "status": {
            "flavorsReservation": [{
                "name": "a100",
                "resources": [
                    {"name": "cpu", "total": "24", "borrowed": "0"},
                    {"name": "memory", "total": "96Gi", "borrowed": "0"},
                    {"name": "nvidia.com/gpu", "total": "6", "borrowed": "0"}
                ]
            }]
        }
    })");
    if (!cohort.empty()) {
        cq["spec"]["cohortName"] = cohort;
    }
    return cq;
}

}  // namespace

TEST_CASE("cluster_queue_fit gives the three verdicts with the numbers", "[doctor][kueue]") {
    struct Case {
        const char* name;
        std::map<std::string, double> job;
        QueueFitVerdict verdict;
        const char* message;
    };
    const Case cases[] = {
        {"room now",
         {{"cpu", 8}, {"memory", 32 * k_gi}, {"nvidia.com/gpu", 4}},
         QueueFitVerdict::FitsNow,
         "ClusterQueue gpu has room for the job: cpu asked 8, used 24 of 32 in flavor a100; "
         "memory asked 32Gi, used 96Gi of 256Gi in flavor a100; nvidia.com/gpu asked 4, used 6 "
         "of 8 (+4 borrowing) in flavor a100"},
        {"room now in 500m steps",
         {{"cpu", 0.5}},
         QueueFitVerdict::FitsNow,
         "ClusterQueue gpu has room for the job: cpu asked 500m, used 24 of 32 in flavor a100"},
        {"when others finish",
         {{"cpu", 16}, {"nvidia.com/gpu", 2}},
         QueueFitVerdict::FitsLater,
         "ClusterQueue gpu admits the job when others' workloads finish: cpu asked 16, used 24 "
         "of 32 in flavor a100"},
        {"over the quota and its borrowing limit",
         {{"cpu", 8}, {"nvidia.com/gpu", 16}},
         QueueFitVerdict::NeverFits,
         "ClusterQueue gpu can never admit the job: nvidia.com/gpu asked 16, used 6 of 8 (+4 "
         "borrowing) in flavor a100"},
        {"within its borrowing limit but not the nominal quota",
         {{"nvidia.com/gpu", 12}},
         QueueFitVerdict::FitsLater,
         "ClusterQueue gpu admits the job when others' workloads finish: nvidia.com/gpu asked "
         "12, used 6 of 8 (+4 borrowing) in flavor a100"},
        {"a resource it does not cover",
         {{"cpu", 1}, {"example.com/fpga", 1}},
         QueueFitVerdict::NeverFits,
         "ClusterQueue gpu can never admit the job: example.com/fpga asked 1, but no flavor of "
         "it covers example.com/fpga"},
        {"nothing asked",
         {{"cpu", 0}},
         QueueFitVerdict::FitsNow,
         "ClusterQueue gpu has room for the job"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        QueueFit fit = cluster_queue_fit(c.job, gpu_queue());
        CHECK(fit.cluster_queue == "gpu");
        CHECK(fit.verdict == c.verdict);
        CHECK(fit.message == c.message);
    }
}

TEST_CASE("cluster_queue_fit never says never for a cohort's unlimited borrowing",
          "[doctor][kueue]") {
    json cq = gpu_queue("research");
    cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0] = {{"name", "cpu"},
                                                                     {"nominalQuota", "32"}};
    QueueFit fit = cluster_queue_fit({{"cpu", 100}}, cq);
    CHECK(fit.verdict == QueueFitVerdict::FitsLater);
    CHECK(fit.message ==
          "ClusterQueue gpu admits the job when others' workloads finish: cpu asked 100, used 24 "
          "of 32 (+ what its cohort lends) in flavor a100");
    REQUIRE(fit.resources.size() == 1);
    CHECK(fit.resources[0].unbounded);
    // A borrowing limit set in the cohort still bounds it.
    CHECK(cluster_queue_fit({{"nvidia.com/gpu", 13}}, cq).verdict == QueueFitVerdict::NeverFits);
}

TEST_CASE("cluster_queue_fit takes the best flavor of a group, the worst group",
          "[doctor][kueue]") {
    json cq = gpu_queue();
    // A second flavor h100 with 16 GPUs, none used: a job of 10 GPUs fits there now.
    cq["spec"]["resourceGroups"][0]["flavors"].push_back(
        {{"name", "h100"},
         {"resources", json::array({{{"name", "cpu"}, {"nominalQuota", 64}},
                                    {{"name", "memory"}, {"nominalQuota", "512Gi"}},
                                    {{"name", "nvidia.com/gpu"}, {"nominalQuota", 16}}})}});
    QueueFit fit = cluster_queue_fit({{"cpu", 8}, {"nvidia.com/gpu", 10}}, cq);
    CHECK(fit.verdict == QueueFitVerdict::FitsNow);
    REQUIRE(fit.resources.size() == 2);
    CHECK(fit.resources[1].flavor == "h100");
    CHECK(fit.resources[1].used == 0);
    // A second group for ephemeral storage, too small: the job never fits.
    cq["spec"]["resourceGroups"].push_back(
        {{"coveredResources", {"ephemeral-storage"}},
         {"flavors", json::array({{{"name", "disk"},
                                   {"resources", json::array({{{"name", "ephemeral-storage"},
                                                               {"nominalQuota", "100Gi"}}})}}})}});
    fit = cluster_queue_fit({{"nvidia.com/gpu", 1}, {"ephemeral-storage", 200 * k_gi}}, cq);
    CHECK(fit.verdict == QueueFitVerdict::NeverFits);
    CHECK(fit.message ==
          "ClusterQueue gpu can never admit the job: ephemeral-storage asked 200Gi, used 0 of "
          "100Gi in flavor disk");
}

TEST_CASE("cluster_queue_fit reads usage when no reservation is given, and odd JSON as none",
          "[doctor][kueue]") {
    json cq = gpu_queue();
    cq["status"]["flavorsUsage"] = cq["status"]["flavorsReservation"];
    cq["status"].erase("flavorsReservation");
    CHECK(cluster_queue_fit({{"nvidia.com/gpu", 2}}, cq).verdict == QueueFitVerdict::FitsNow);
    CHECK(cluster_queue_fit({{"nvidia.com/gpu", 7}}, cq).verdict == QueueFitVerdict::FitsLater);
    // Nothing readable: no flavor covers anything, so nothing is admitted.
    for (const json& odd :
         {json(), json::array(), json("gpu"), json::parse(R"({"spec": {"resourceGroups": 3}})"),
          json::parse(R"({"spec": {"resourceGroups": [{"flavors": [
                                {"name": "x", "resources": [{"name": "cpu",
                                "nominalQuota": "lots"}]}]}]}})")}) {
        QueueFit fit = cluster_queue_fit({{"cpu", 1}}, odd);
        CHECK(fit.verdict == QueueFitVerdict::NeverFits);
    }
    CHECK(std::string(queue_fit_name(QueueFitVerdict::FitsLater)) == "fits when others finish");
    CHECK(manifest::quantity_text("memory", 1.5 * k_gi) == "1.5Gi");
    CHECK(manifest::quantity_text("memory", 512 * 1024 * 1024) == "512Mi");
    CHECK(manifest::quantity_text("cpu", 0.25) == "250m");
}

}  // namespace kftrain::doctor
