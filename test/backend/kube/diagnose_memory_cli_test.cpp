// kftrain diagnose of a replica the kubelet OOMKilled: its limit, read from its pod, and the
// peak estimate --measure saw, from the profile saved for a job of its name.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/jobs.h"

namespace kftrain::test {
namespace {

// The failed scenario's mnist-ddp: master-0 OOMKilled at its pod's 4Gi limit.
CliRun diagnose_failed(const FakeCluster& cluster, const std::string& state,
                       const std::string& output) {
    auto env = cluster.env();
    env["XDG_STATE_HOME"] = state;
    std::vector<std::string> args = {"diagnose", "mnist-ddp", "-n", "ml-training"};
    if (!output.empty()) {
        args.insert(args.end(), {"-o", output});
    }
    return run_kftrain(args, env);
}

}  // namespace

TEST_CASE("diagnose of an OOMKilled replica names its limit and the measured peak, with the fix",
          "[diagnose][cluster][cli][memory]") {
    FakeCluster cluster("failed");
    const std::string state = make_temp_dir();
    const auto job = load_job("name: mnist-ddp\nresources: {memory: 4Gi}\n");
    const std::string profile = save_measured_use(state, job, 5 * 1024, true);
    CliRun run = diagnose_failed(cluster, state, "json");
    INFO(run.err);
    REQUIRE(run.code == 0);
    const auto d = nlohmann::json::parse(run.out);
    CHECK(d["cause"] == "out-of-memory");
    CHECK(d["hint"] ==
          "master-0 was OOMKilled at its 4Gi limit; kftrain estimate --measure saw a peak of 5Gi "
          "(2026-12-06): set resources.memory to 6Gi");
    const auto& memory = d["memory"];
    CHECK(memory["replica"] == "master-0");
    CHECK(memory["limitBytes"] == 4.0 * (1 << 30));
    CHECK(memory["limit"] == "4Gi");
    CHECK(memory["limitEnforced"] == true);
    CHECK(memory["measuredPeakBytes"] == 5.0 * (1 << 30));
    CHECK(memory["measuredPeak"] == "5Gi");
    CHECK(memory["measuredAtReplicas"] == 2);
    CHECK(memory["measuredAt"] == "2026-12-06T09:12:00Z");
    CHECK(memory["profile"] == profile);
    CHECK(memory["recommendedMemory"] == "6Gi");
    CHECK(memory["fix"] == d["hint"]);
    CHECK(contains(diagnose_failed(cluster, state, "").out,
                   "Hint:       master-0 was OOMKilled at its 4Gi limit; kftrain estimate "
                   "--measure saw a peak of 5Gi (2026-12-06): set resources.memory to 6Gi\n"));
}

TEST_CASE("diagnose of an OOMKilled replica never measured names its limit and says to measure",
          "[diagnose][cluster][cli][memory]") {
    FakeCluster cluster("failed");
    CliRun run = diagnose_failed(cluster, make_temp_dir(), "json");
    REQUIRE(run.code == 0);
    const auto d = nlohmann::json::parse(run.out);
    CHECK(d["hint"] ==
          "master-0 was OOMKilled at its 4Gi limit; measure what it needs with kftrain estimate "
          "--measure, then give it that (resources.memory), or lower the batch size");
    CHECK(d["memory"]["limit"] == "4Gi");
    CHECK(d["memory"]["measuredPeakBytes"].is_null());
    CHECK(d["memory"]["recommendedMemory"].is_null());
    // A job that did not run out of memory has none.
    FakeCluster evicted("evicted");
    CHECK(nlohmann::json::parse(diagnose_failed(evicted, make_temp_dir(), "json").out)["memory"]
              .is_null());
}

}  // namespace kftrain::test
