// kftrain top against the real cluster: what spinning replicas use, read from the kubelet's
// summary, and a node's extended GPUs (patched into its status, as Kubernetes documents for
// extended resources) allocated to a pod.

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"

using kftrain::e2e::Namespace;
using kftrain::e2e::poll_until;
using nlohmann::json;

namespace {

// A PyTorchJob of the busybox image whose every replica spins a CPU (throttled at its limit).
std::string spin_job(const std::string& name, int replicas) {
    return fmt::format(R"(name: {}
image: {}
replicas: {}
command: [sh, -c]
args: ['while :; do :; done']
resources: {{cpu: 100m, memory: 32Mi}}
)",
                       name, kftrain::e2e::busybox_image(), replicas);
}

// Whether every replica of `top -o json` shows CPU and memory in use.
bool every_replica_busy(const json& usage, size_t replicas) {
    if (!usage.contains("replicas") || usage["replicas"].size() != replicas) {
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

// The JSON patch that adds (or removes) count nvidia.com/gpu to a node's capacity and
// allocatable.
std::string gpu_patch(int count) {
    json patch = json::array();
    for (const char* field : {"capacity", "allocatable"}) {
        const std::string path = fmt::format("/status/{}/nvidia.com~1gpu", field);
        if (count > 0) {
            patch.push_back({{"op", "add"}, {"path", path}, {"value", std::to_string(count)}});
        } else {
            patch.push_back({{"op", "remove"}, {"path", path}});
        }
    }
    return patch.dump();
}

// Patch a node's status subresource: with kubectl's --subresource (1.24 and later), else by
// putting the node with the patch applied to /api/v1/nodes/NODE/status (kubectl replace --raw).
kftrain::test::CliRun patch_node_status(const std::string& node, int gpus) {
    auto patched = kftrain::e2e::kubectl(
        {"patch", "node", node, "--subresource=status", "--type=json", "-p", gpu_patch(gpus)});
    if (patched.code == 0 || patched.err.find("unknown flag") == std::string::npos) {
        return patched;
    }
    auto got = kftrain::e2e::kubectl({"get", "node", node, "-o", "json"});
    if (got.code != 0) {
        return got;
    }
    json object = json::parse(got.out).patch(json::parse(gpu_patch(gpus)));
    return kftrain::e2e::kubectl(
        {"replace", "--raw", "/api/v1/nodes/" + node + "/status", "-f", "-"}, object.dump());
}

// Advertises 4 nvidia.com/gpu on a node for the life of a test, and takes them away again
// however the test ends.
class AdvertisedGpus {
  public:
    explicit AdvertisedGpus(std::string node) : m_node(std::move(node)) {
        auto patched = patch_node_status(m_node, 4);
        INFO(patched.out << patched.err);
        REQUIRE(patched.code == 0);
    }
    ~AdvertisedGpus() { patch_node_status(m_node, 0); }
    AdvertisedGpus(const AdvertisedGpus&) = delete;
    AdvertisedGpus& operator=(const AdvertisedGpus&) = delete;

  private:
    std::string m_node;
};

// A pod of the busybox image that asks for one nvidia.com/gpu and sleeps.
std::string gpu_pod(const std::string& name) {
    return fmt::format(R"(apiVersion: v1
kind: Pod
metadata:
  name: {}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: {}
    imagePullPolicy: IfNotPresent
    command: [sleep, "3600"]
    resources:
      requests: {{cpu: 10m, memory: 16Mi, nvidia.com/gpu: "1"}}
      limits: {{nvidia.com/gpu: "1"}}
)",
                       name, kftrain::e2e::busybox_image());
}

}  // namespace

TEST_CASE("top of a job spinning its CPUs shows CPU and memory in use for every replica", "[e2e]") {
    Namespace ns("top");
    ns.submit(spin_job("spin", 2));
    json usage;
    poll_until("every replica's CPU and memory in kftrain top", std::chrono::seconds(180),
               [&](std::string& last) {
                   auto run = ns.kftrain({"top", "spin", "-o", "json"});
                   last = run.out + run.err;
                   if (run.code != 0) {
                       return false;
                   }
                   usage = json::parse(run.out);
                   return every_replica_busy(usage, 2);
               });
    // The minicluster has no metrics-server: the kubelet's summary, unless one was installed.
    CHECK((usage["source"] == "kubelet summary" || usage["source"] == "metrics.k8s.io"));
    for (const json& replica : usage["replicas"]) {
        CHECK_FALSE(replica["node"].get<std::string>().empty());
        CHECK(replica["cpu"]["request"].get<double>() == Approx(0.1));
        CHECK(replica["cpu"]["limit"].get<double>() == Approx(0.1));
        CHECK(replica["memory"]["limit"].get<double>() == Approx(32.0 * 1024 * 1024));
    }
    auto table = ns.kftrain({"top", "spin"});
    INFO(table.out << table.err);
    CHECK(table.code == 0);
    CHECK(table.out.find("master-0") != std::string::npos);
    CHECK(table.out.find("worker-0") != std::string::npos);
    CHECK(table.out.find("100m/100m") != std::string::npos);
}

TEST_CASE("top nodes shows 1 of 4 advertised GPUs allocated once a pod asks for one",
          "[e2e][serial]") {
    Namespace ns("topgpu");
    auto nodes = kftrain::e2e::kubectl({"get", "nodes", "-o", "json"});
    REQUIRE(nodes.code == 0);
    const std::string node = json::parse(nodes.out)["items"].at(0)["metadata"]["name"];
    AdvertisedGpus gpus(node);
    ns.apply(gpu_pod("gpu-user"));
    json resources = json::object();
    poll_until("1 of 4 nvidia.com/gpu allocated in kftrain top nodes", std::chrono::seconds(120),
               [&](std::string& last) {
                   auto run = ns.kftrain({"top", "nodes", "-o", "json"});
                   last = run.out + run.err;
                   if (run.code != 0) {
                       return false;
                   }
                   const json doc = json::parse(run.out);
                   for (const json& item : doc["nodes"]) {
                       if (item["name"] == node && item["resources"].is_object()) {
                           resources = item["resources"];
                       }
                   }
                   if (!resources.contains("nvidia.com/gpu")) {
                       return false;
                   }
                   const json& gpu = resources["nvidia.com/gpu"];
                   return gpu["allocatable"].is_number() && gpu["allocated"].is_number() &&
                          gpu["allocatable"].get<double>() == 4 &&
                          gpu["allocated"].get<double>() == 1;
               });
    auto table = ns.kftrain({"top", "nodes"});
    INFO(table.out << table.err);
    CHECK(table.code == 0);
    CHECK(table.out.find("1/4 (25%)") != std::string::npos);
}
