// suspend and resume on real pods: the stand-in deletes the pods (the kubelet sends SIGTERM,
// the trainer checkpoints to a claim bound to a hostPath volume) and makes them again, and the
// trainer goes on from its checkpoint.

#include <dirent.h>

#include <catch2/catch.hpp>
#include <future>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"

using kftrain::e2e::Namespace;
using kftrain::e2e::poll_until;
using nlohmann::json;

namespace {

// The names in a directory, "" when it cannot be read.
std::string entries(const std::string& dir) {
    std::string names;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            std::string name = e->d_name;
            if (name != "." && name != "..") {
                names += name + "\n";
            }
        }
        ::closedir(d);
    }
    return names;
}

}  // namespace

TEST_CASE("a suspended job's pods go, and on resume it trains on from its checkpoint on a claim",
          "[e2e]") {
    const std::string kind = GENERATE("PyTorchJob", "TrainJob");
    Namespace ns("pause");
    const std::string host_dir = kftrain::e2e::make_host_claim(ns, "checkpoints");
    // With more samples, the run lasts long enough to be suspended half way.
    ns.submit(kftrain::e2e::trainer_job("pause", kind, 2, R"(volumes:
  - name: checkpoints
    claim: checkpoints
    mountPath: /checkpoints
)"),
              {"--set", "trainer.samples=16384", "--set", "trainer.epochs=2", "--set",
               "trainer.checkpointDir=/checkpoints/pause", "--set", "trainer.checkpointEvery=4"});

    poll_until("a checkpoint on the claim", std::chrono::seconds(180), [&](std::string& last) {
        last = entries(host_dir + "/pause");
        return !last.empty();
    });

    // Two suspends at once (two terminals, a script and an agent): both patch, both see the
    // pods go, neither waits for its --timeout.
    const std::vector<std::string> suspend{"suspend", "pause",      "--timeout",
                                           "2m",      "--interval", "1s"};
    auto other = std::async(std::launch::async, [&] { return ns.kftrain(suspend); });
    auto suspended = ns.kftrain(suspend);
    auto also = other.get();
    INFO(suspended.out << suspended.err << also.out << also.err);
    REQUIRE(suspended.code == 0);
    REQUIRE(also.code == 0);
    auto status = json::parse(ns.kftrain({"status", "pause", "-o", "json"}).out);
    CHECK(status["state"] == "Suspended");
    CHECK(ns.kubectl({"get", "pods", "-o", "name"}).out.empty());

    auto resumed = ns.kftrain({"resume", "pause", "--timeout", "2m", "--interval", "1s"});
    INFO(resumed.out << resumed.err);
    REQUIRE(resumed.code == 0);
    auto waited =
        ns.kftrain({"wait", "pause", "--for", "succeeded", "--timeout", "6m", "--interval", "2s"});
    INFO(waited.out << waited.err << kftrain::e2e::pods_of(ns));
    REQUIRE(waited.code == 0);

    // Rank 0 of the new pods says where it resumed: past step 0.
    auto logs = ns.kftrain({"logs", "pause", "--raw"});
    const std::string key = "\"resumed_from\":";
    auto at = logs.out.find(key);
    INFO(logs.out);
    REQUIRE(at != std::string::npos);
    CHECK(std::atoll(logs.out.c_str() + at + key.size()) > 0);
}
