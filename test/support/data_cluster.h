#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/cli_runner.h"
#include "support/fake_cluster.h"

namespace kftrain::test {

// The fake cluster with a directory per claim (KFTRAIN_FAKE_VOLUMES/<claim>) for the data
// helper pod's exec: the fake runs the pod's tar, find and stat there.
struct DataCluster {
    FakeCluster cluster;
    std::string volumes;

    explicit DataCluster(const std::string& scenario);
    std::map<std::string, std::string> env() const;
    CliRun run(const std::vector<std::string>& args) const;
};

// Return the name the helper pod was applied under (the test fails unless exactly one was).
std::string applied_pod_name(const FakeCluster& cluster);

// Check the last kubectl call deletes the helper pod (namespace ml-training) without waiting.
void check_pod_deleted(const FakeCluster& cluster);

}  // namespace kftrain::test
