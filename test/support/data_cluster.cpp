#include "support/data_cluster.h"

#include <catch2/catch.hpp>

#include "support/files.h"

namespace kftrain::test {

DataCluster::DataCluster(const std::string& scenario)
    : cluster(scenario), volumes(make_temp_dir()) {}

std::map<std::string, std::string> DataCluster::env() const {
    auto env = cluster.env();
    env["KFTRAIN_FAKE_VOLUMES"] = volumes;
    return env;
}

CliRun DataCluster::run(const std::vector<std::string>& args) const {
    return run_kftrain(args, env());
}

std::string applied_pod_name(const FakeCluster& cluster) {
    auto applied = cluster.applied();
    REQUIRE(applied.size() == 1);
    auto at = applied[0].find("name: kftrain-data-");
    REQUIRE(at != std::string::npos);
    auto end = applied[0].find('\n', at);
    return applied[0].substr(at + 6, end - at - 6);
}

void check_pod_deleted(const FakeCluster& cluster) {
    const std::string pod = applied_pod_name(cluster);
    auto calls = cluster.calls();
    REQUIRE_FALSE(calls.empty());
    CHECK(calls.back() == std::vector<std::string>{"delete", "pod", "--wait=false",
                                                   "--ignore-not-found", "-n", "ml-training", "--",
                                                   pod});
}

}  // namespace kftrain::test
