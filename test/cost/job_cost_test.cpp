#include "cost/job_cost.h"

#include <catch2/catch.hpp>

#include "support/text.h"

using namespace kftrain;
using kftrain::estimate::CpuPrice;
using kftrain::estimate::GpuPrice;
using kftrain::estimate::PriceCatalog;

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

PriceCatalog cost_prices() {
    PriceCatalog c;
    c.file = "prices.yaml";
    c.gpus["a100"] = GpuPrice{"p4d.24xlarge", 4.0, 8, std::nullopt, std::nullopt};
    c.gpus["l4"] = GpuPrice{"g6.12xlarge", 1.0, 4, std::nullopt, std::nullopt};
    c.gpus["t4"] = GpuPrice{"g4dn.12xlarge", 0.5, 4, std::nullopt, std::nullopt};
    c.cpu = CpuPrice{"n2", 0.03, 0.004, std::nullopt};
    return c;
}

// One Master and workers Workers, each asking for 2 cores and 4 GiB, started at 10:00.
job::JobStatus cpu_job(int workers) {
    job::JobStatus s;
    s.name = "mnist-ddp";
    s.backend = "kubernetes";
    s.phase = job::JobPhase::Running;
    s.started = "2024-05-01T10:00:00Z";
    s.requests = {{"Master", 1, 2, 4 * k_gib, 0}, {"Worker", workers, 2, 4 * k_gib, 0}};
    return s;
}

job::JobStatus gpu_job(const std::map<std::string, std::string>& node_selector) {
    job::JobStatus s = cpu_job(3);
    s.requests = {{"Master", 1, 8, 32 * k_gib, 2}, {"Worker", 3, 8, 32 * k_gib, 2}};
    s.node_selector = node_selector;
    return s;
}

}  // namespace

TEST_CASE("a running job costs elapsed hours x replicas x price per replica-hour", "[cost]") {
    auto cost = cost::job_cost(cpu_job(3), {cost_prices(), ""},
                               kftrain::test::time_at("2024-05-01T12:00:00Z"));
    REQUIRE(cost);
    const double per_replica = 2 * 0.03 + 4 * 0.004;
    CHECK(cost->replicas == 4);
    CHECK(cost->elapsed_s == 7200);
    CHECK(cost->per_hour == Approx(4 * per_replica));
    CHECK(cost->amount == Approx(2 * 4 * per_replica));
    CHECK_FALSE(cost->final);
    CHECK(cost->basis == "4 replicas x $0.0760/h each (2 cores, 4 GiB)");
    CHECK(cost->prices == "prices.yaml");
}

TEST_CASE("a finished job's cost stops at its completion", "[cost]") {
    job::JobStatus s = cpu_job(1);
    s.phase = job::JobPhase::Succeeded;
    s.finished = "2024-05-01T10:30:00Z";
    auto later =
        cost::job_cost(s, {cost_prices(), ""}, kftrain::test::time_at("2024-06-01T00:00:00Z"));
    REQUIRE(later);
    CHECK(later->final);
    CHECK(later->elapsed_s == 1800);
    CHECK(later->amount == Approx(0.5 * 2 * (2 * 0.03 + 4 * 0.004)));
}

TEST_CASE("replica types asking for different resources are priced each", "[cost]") {
    job::JobStatus s = cpu_job(2);
    s.requests[0].cpu_cores = 4;
    s.requests[1].memory_bytes = 0;
    auto cost =
        cost::job_cost(s, {cost_prices(), ""}, kftrain::test::time_at("2024-05-01T11:00:00Z"));
    REQUIRE(cost);
    CHECK(cost->amount == Approx((4 * 0.03 + 4 * 0.004) + 2 * (2 * 0.03)));
    CHECK(cost->basis == "1 Master x $0.1360/h (4 cores, 4 GiB) + 2 Worker x $0.0600/h (2 cores)");
}

TEST_CASE("a replica without a CPU request is priced as one core, and says so", "[cost]") {
    job::JobStatus s = cpu_job(1);
    s.requests = {{"Master", 1, 0, 0, 0}, {"Worker", 1, 0, 0, 0}};
    auto cost =
        cost::job_cost(s, {cost_prices(), ""}, kftrain::test::time_at("2024-05-01T11:00:00Z"));
    REQUIRE(cost);
    CHECK(cost->amount == Approx(2 * 0.03));
    CHECK(cost->basis == "2 replicas x $0.0300/h each (1 core assumed: no CPU request)");
}

TEST_CASE("GPU replicas are priced by the type the node selector names", "[cost]") {
    auto cost = cost::job_cost(gpu_job({{"cloud.google.com/gke-accelerator", "nvidia-tesla-a100"}}),
                               {cost_prices(), ""}, kftrain::test::time_at("2024-05-01T11:00:00Z"));
    REQUIRE(cost);
    CHECK(cost->gpu == "a100");
    CHECK(cost->amount == Approx(4 * 2 * 4.0));
    CHECK(cost->basis == "4 replicas x $8.00/h each (2 x a100)");
}

TEST_CASE("the --gpu flag names the GPU type over the node selector", "[cost]") {
    auto cost =
        cost::job_cost(gpu_job({{"cloud.google.com/gke-accelerator", "nvidia-tesla-a100"}}),
                       {cost_prices(), "t4"}, kftrain::test::time_at("2024-05-01T11:00:00Z"));
    REQUIRE(cost);
    CHECK(cost->gpu == "t4");
    CHECK(cost->amount == Approx(4 * 2 * 0.5));
}

TEST_CASE("the GPU type is read from the usual node labels", "[cost]") {
    struct Case {
        const char* key;
        const char* value;
        const char* gpu;
    };
    const Case cases[] = {
        {"cloud.google.com/gke-accelerator", "nvidia-tesla-a100", "a100"},
        {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB", "a100"},
        {"cloud.google.com/gke-accelerator", "nvidia-tesla-t4", "t4"},
        {"karpenter.k8s.aws/instance-gpu-name", "l4", "l4"},
        {"node.kubernetes.io/instance-type", "p4d.24xlarge", "a100"},
        {"cloud.google.com/gke-accelerator", "nvidia-l40s", ""},  // not an l4
        {"disktype", "ssd", ""},
    };
    for (const auto& c : cases) {
        SECTION(std::string(c.key) + "=" + c.value) {
            CHECK(cost::gpu_type_from_selector({{c.key, c.value}}, cost_prices()) == c.gpu);
        }
    }
}

TEST_CASE("a job that cannot be priced says why", "[cost]") {
    const auto now = kftrain::test::time_at("2024-05-01T11:00:00Z");
    SECTION("GPU type unknown") {
        auto cost = cost::job_cost(gpu_job({}), {cost_prices(), ""}, now);
        REQUIRE_FALSE(cost);
        CHECK(cost.error() ==
              "its GPU type is unknown: name it with --gpu (one of a100, l4, t4 in prices.yaml)");
    }
    SECTION("no CPU prices in the catalog") {
        PriceCatalog gpus_only = cost_prices();
        gpus_only.cpu.reset();
        auto cost = cost::job_cost(cpu_job(1), {gpus_only, ""}, now);
        REQUIRE_FALSE(cost);
        CHECK(cost.error() == "prices.yaml has no CPU prices");
    }
    SECTION("resources not known") {
        job::JobStatus s = cpu_job(1);
        s.requests.clear();
        auto cost = cost::job_cost(s, {cost_prices(), ""}, now);
        REQUIRE_FALSE(cost);
        CHECK(cost.error() == "the replicas' resource requests are not known");
    }
    SECTION("no start or creation time") {
        job::JobStatus s = cpu_job(1);
        s.started.clear();
        auto cost = cost::job_cost(s, {cost_prices(), ""}, now);
        REQUIRE_FALSE(cost);
        CHECK(cost.error() == "the job has not started");
    }
}
