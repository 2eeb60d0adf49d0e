// What a measurement on the cluster reads: timestamped log lines read again by --since-time,
// when the lead's container started, what the nodes are, why pods wait, and the job it runs.
#include "backend/kube/measure/measure_reads.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/jobs.h"
#include "util/time_text.h"

namespace kube = kftrain::backend::kube;
namespace job = kftrain::job;
using nlohmann::json;

TEST_CASE("a timestamped log line is split into the kubelet's time and the program's text",
          "[measure][cluster]") {
    auto line = kube::split_stamped("2026-12-02T03:04:05.250000000Z {\"event\": \"progress\"}");
    REQUIRE(line);
    CHECK(line->time ==
          Approx(*kftrain::util::parse_timestamp_seconds("2026-12-02T03:04:05Z") + 0.25));
    CHECK(line->text == "{\"event\": \"progress\"}");
    CHECK_FALSE(kube::split_stamped("no timestamp here"));
    CHECK_FALSE(kube::split_stamped(""));
    auto empty_text = kube::split_stamped("2026-12-02T03:04:05Z ");
    REQUIRE(empty_text);
    CHECK(empty_text->text.empty());
}

TEST_CASE("a log read again from the second it was last read gives only its new lines",
          "[measure][cluster]") {
    kube::StampedLog log;
    CHECK(log.since().empty());
    auto first = log.take(
        "2026-12-02T03:04:05.100Z a\n2026-12-02T03:04:05.900Z b\n2026-12-02T03:04:05.900Z c\n");
    REQUIRE(first.size() == 3);
    CHECK(log.since() == "2026-12-02T03:04:05Z");  // the API takes whole seconds
    // --since-time rounds down: the read repeats the second's lines, then what is new,
    // including a new line of the very same time as the last one taken.
    auto second = log.take(
        "2026-12-02T03:04:05.100Z a\n2026-12-02T03:04:05.900Z b\n2026-12-02T03:04:05.900Z c\n"
        "2026-12-02T03:04:05.900Z d\n2026-12-02T03:04:06.000Z e\nnot stamped\n");
    REQUIRE(second.size() == 2);
    CHECK(second[0].text == "d");
    CHECK(second[1].text == "e");
    CHECK(log.take("2026-12-02T03:04:06.000Z e\n").empty());
}

TEST_CASE("the lead's container start is read from its pod, running or ended",
          "[measure][cluster]") {
    json pod = {{"status",
                 {{"containerStatuses",
                   {{{"name", "sidecar"}, {"state", {{"running", {{"startedAt", "x"}}}}}},
                    {{"name", "pytorch"},
                     {"state", {{"running", {{"startedAt", "2026-12-02T03:00:10Z"}}}}}}}}}}};
    CHECK(kube::container_started(pod, "pytorch") ==
          kftrain::util::parse_timestamp_seconds("2026-12-02T03:00:10Z"));
    json ended = {
        {"status",
         {{"containerStatuses",
           {{{"name", "node"},
             {"state",
              {{"terminated", {{"startedAt", "2026-12-02T03:00:12Z"}, {"exitCode", 0}}}}}}}}}}};
    CHECK(kube::container_started(ended, "node") ==
          kftrain::util::parse_timestamp_seconds("2026-12-02T03:00:12Z"));
    json waiting = {
        {"status",
         {{"containerStatuses",
           {{{"name", "pytorch"}, {"state", {{"waiting", {{"reason", "ContainerCreating"}}}}}}}}}}};
    CHECK_FALSE(kube::container_started(waiting, "pytorch"));
    CHECK_FALSE(kube::container_started(json::object(), "pytorch"));
}

TEST_CASE("a measurement starts when its last replica's container does, not its lead's",
          "[measure][cluster]") {
    const auto pod = [](const std::string& name, const std::string& state) {
        json container = {{"name", "pytorch"}, {"state", json::object()}};
        if (state.empty()) {
            container["state"]["waiting"] = {{"reason", "PodInitializing"}};
        } else {
            container["state"]["running"] = {{"startedAt", state}};
        }
        return json{{"metadata", {{"name", name}}},
                    {"status", {{"containerStatuses", json::array({container})}}}};
    };
    std::vector<job::ReplicaStatus> replicas(2);
    replicas[0].pod = "fit-master-0";
    replicas[1].pod = "fit-worker-0";
    // The lead started at :10 and waited for a worker scheduled 25s later.
    json pods = {{"items",
                  {pod("fit-worker-0", "2026-12-02T03:00:35Z"),
                   pod("fit-master-0", "2026-12-02T03:00:10Z"), pod("other-pod", "")}}};
    CHECK(kube::last_started(pods, replicas, "pytorch") ==
          kftrain::util::parse_timestamp_seconds("2026-12-02T03:00:35Z"));
    pods["items"][0] = pod("fit-worker-0", "");  // still in its init container
    CHECK_FALSE(kube::last_started(pods, replicas, "pytorch"));
}

TEST_CASE("the nodes' hardware is said from their labels and capacity", "[measure][cluster]") {
    json gpu_node = {{"metadata",
                      {{"labels",
                        {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
                         {"node.kubernetes.io/instance-type", "p5.48xlarge"},
                         {"kubernetes.io/arch", "amd64"}}}}},
                     {"status", {{"capacity", {{"cpu", "192"}, {"nvidia.com/gpu", "8"}}}}}};
    json cpu_node = {{"metadata", {{"labels", {{"kubernetes.io/arch", "amd64"}}}}},
                     {"status", {{"capacity", {{"cpu", "2"}, {"memory", "24Gi"}}}}}};
    CHECK(kube::node_hardware({{"items", {gpu_node, gpu_node}}}) ==
          "NVIDIA-H100-80GB-HBM3 x 8, p5.48xlarge");
    CHECK(kube::node_hardware({{"items", {cpu_node}}}) == "2 CPUs, amd64");
    CHECK(kube::node_hardware({{"items", {gpu_node, cpu_node}}}) ==
          "NVIDIA-H100-80GB-HBM3 x 8, p5.48xlarge; 2 CPUs, amd64");
    CHECK(kube::node_hardware(json::object()).empty());
    json hostile = {{"metadata", {{"labels", {{"kubernetes.io/arch", "x\x1b]0;title\x07"}}}}}};
    CHECK(kube::node_hardware({{"items", {hostile}}}).find('\x1b') == std::string::npos);
}

TEST_CASE("why pods have not started names the replicas that wait and their reasons",
          "[measure][cluster]") {
    job::JobStatus status;
    status.replicas_wanted = 2;
    CHECK_THAT(kube::not_started_reason(status), Catch::Contains("no pods were made"));
    CHECK_FALSE(kube::all_started(status));
    job::ReplicaStatus master;
    master.name = "master-0";
    master.state = "Running";
    job::ReplicaStatus worker;
    worker.name = "worker-0";
    worker.state = "Pending";
    worker.reason = "ImagePullBackOff";
    worker.message = "Back-off pulling image \"registry.invalid/x:1\"";
    status.replicas = {master, worker};
    CHECK_FALSE(kube::all_started(status));
    CHECK(kube::not_started_reason(status) ==
          "worker-0 Pending: ImagePullBackOff: Back-off pulling image \"registry.invalid/x:1\"");
    status.diagnosis = {"worker-0 is Unschedulable: 0/1 nodes are available"};
    CHECK(kube::not_started_reason(status) == status.diagnosis.front());
    status.replicas[1].state = "Running";
    CHECK(kube::all_started(status));
    status.replicas.pop_back();  // one of the two replicas has no pod yet
    CHECK_FALSE(kube::all_started(status));
}

TEST_CASE("a measurement's job on the cluster mounts empty scratch space for writable volumes",
          "[measure][cluster]") {
    kftrain::manifest::JobSpec spec = kftrain::test::load_job(
        "name: own\nreplicas: 4\nrestartPolicy: OnFailure\ncommand: [python3, train.py]\n"
        "volumes:\n"
        "  - {name: ckpt, claim: checkpoints, mountPath: /ckpt}\n"
        "  - {name: data, claim: datasets, mountPath: /data, readOnly: true}\n");
    const kftrain::manifest::JobSpec sized = kube::cluster_job(spec, 2);
    CHECK(sized.name == "own-measure-2");
    CHECK(sized.replicas == 2);
    CHECK(sized.restart_policy == "Never");
    const json rendered = kftrain::test::render_json(sized);
    INFO(rendered.dump(2));
    for (const char* type : {"Master", "Worker"}) {
        const json& volumes =
            rendered["spec"]["pytorchReplicaSpecs"][type]["template"]["spec"]["volumes"];
        REQUIRE(volumes.size() == 2);
        CHECK(volumes[0]["name"] == "ckpt");
        CHECK(volumes[0]["emptyDir"] == json::object());
        CHECK_FALSE(volumes[0].contains("persistentVolumeClaim"));  // the real run's claim
        CHECK(volumes[1]["persistentVolumeClaim"]["claimName"] == "datasets");  // read as is
    }
}

TEST_CASE("a measurement reads the lead replica the job's logs are read from",
          "[measure][cluster]") {
    auto status_of = [](const std::string& kind, const std::vector<std::string>& names) {
        job::JobStatus status;
        status.kind = kind;
        for (const auto& name : names) {
            job::ReplicaStatus replica;
            replica.name = name;
            status.replicas.push_back(replica);
        }
        return status;
    };
    auto lead = [](const job::JobStatus& status) {
        const job::ReplicaStatus* found = kube::lead_of(status);
        return found == nullptr ? std::string("(none)") : found->name;
    };
    CHECK(lead(status_of("PyTorchJob", {"worker-0", "master-0"})) == "master-0");
    // An MPI TrainJob's launcher prints every rank's output, as `kftrain logs` reads it.
    CHECK(lead(status_of("TrainJob", {"node-0", "launcher"})) == "launcher");
    CHECK(lead(status_of("TrainJob", {"node-1", "node-0"})) == "node-0");
    CHECK(lead(status_of("TFJob", {"ps-0", "worker-0"})) == "worker-0");
    CHECK(lead(status_of("TFJob", {"ps-0"})) == "ps-0");
    CHECK(lead(status_of("PyTorchJob", {})) == "(none)");
}
