// `kftrain top --local`: what a local job's replicas use, read from /proc.
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "local_fixture.h"
#include "support/text.h"

using kftrain::test::LocalJobs;
using nlohmann::json;

namespace {

// Whether every replica of `top -o json` shows CPU and memory in use.
bool all_replicas_busy(const json& usage) {
    if (!usage.contains("replicas") || usage["replicas"].empty()) {
        return false;
    }
    for (const json& replica : usage["replicas"]) {
        const json& cpu = replica["cpu"]["used"];
        const json& memory = replica["memory"]["used"];
        if (!cpu.is_number() || cpu.get<double>() <= 0 || !memory.is_number() ||
            memory.get<double>() <= 0) {
            return false;
        }
    }
    return true;
}

}  // namespace

TEST_CASE("top of a local job whose replicas spin shows every replica's CPU and memory in use",
          "[local][cli][top]") {
    LocalJobs jobs;
    const std::string path = jobs.dir() + "/spin.yaml";
    // Each replica's shell spins in a child: the CPU is its process tree's, not its own.
    kftrain::test::write_file(path,
                              "name: spin\nreplicas: 2\n"
                              "resources: {cpu: 500m, memory: 256Mi, limits: {memory: 512Mi}}\n"
                              "command: [\"sh\", \"-c\", \"(while :; do :; done) & wait\"]\n");
    REQUIRE(jobs.kftrain({"submit", "-f", path, "--local"}).code == 0);
    jobs.wait_for("spin", [](const kftrain::job::JobStatus& s) {
        return s.replicas.size() == 2 && s.replicas[0].state == "Running" &&
               s.replicas[1].state == "Running";
    });
    json usage;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!all_replicas_busy(usage) && std::chrono::steady_clock::now() < deadline) {
        auto run = jobs.kftrain({"top", "spin", "--local", "-o", "json"});
        REQUIRE(run.code == 0);
        usage = json::parse(run.out);
    }
    INFO(usage.dump());
    REQUIRE(all_replicas_busy(usage));
    CHECK(usage["source"] == "/proc");
    REQUIRE(usage["replicas"].size() == 2);
    for (const json& replica : usage["replicas"]) {
        CHECK(replica["pid"].get<long long>() > 0);
        CHECK(replica["cpu"]["request"].get<double>() == Approx(0.5));
        CHECK(replica["cpu"]["limit"].get<double>() == Approx(0.5));  // the request's
        CHECK(replica["memory"]["request"].get<double>() == Approx(256.0 * 1024 * 1024));
        CHECK(replica["memory"]["limit"].get<double>() == Approx(512.0 * 1024 * 1024));
    }
    auto table = jobs.kftrain({"top", "spin", "--local"});
    CHECK(table.code == 0);
    CHECK(kftrain::test::contains(table.out, "REPLICA   PID"));
    CHECK(kftrain::test::contains(table.out, "500m/500m"));
    CHECK(kftrain::test::contains(table.out, "256Mi/512Mi"));
    CHECK(jobs.kftrain({"delete", "spin", "--local"}).code == 0);
}

TEST_CASE("top of a local job that does not exist exits 3", "[local][cli][top]") {
    LocalJobs jobs;
    auto run = jobs.kftrain({"top", "nosuch", "--local"});
    CHECK(run.code == 3);
    CHECK(kftrain::test::contains(run.err, "nosuch"));
}

TEST_CASE("top nodes on this machine is refused: it has no nodes", "[local][cli][top]") {
    LocalJobs jobs;
    auto run = jobs.kftrain({"top", "nodes", "--local"});
    CHECK(run.code == 2);
    CHECK(run.err ==
          "kftrain: error: top nodes: a cluster's nodes; this machine has no nodes (got "
          "--local)\n");
}
