#include "backend/kube/status/status.h"

#include <catch2/catch.hpp>

#include "backend/kube/status/events.h"
#include "backend/kube/status/pods.h"
#include "support/test_data.h"

using namespace kftrain;
using kftrain::test::read_test_data;

namespace {

job::JobStatus job_from(const std::string& file) {
    auto status = backend::kube::parse_job_status(read_test_data("kube/" + file));
    REQUIRE(status);
    return *status;
}

std::vector<job::ReplicaStatus> pods_from(const std::string& file,
                                          const std::string& job = "mnist-ddp") {
    auto pods = backend::kube::parse_pods(read_test_data("kube/" + file), job);
    REQUIRE(pods);
    return *pods;
}

// A job with its pods and events, diagnosed as the backend does.
job::JobStatus diagnosed(const std::string& job, const std::string& pods,
                         const std::string& events) {
    job::JobStatus status = job_from(job);
    status.replicas = pods_from(pods);
    std::set<std::string> objects = {status.name};
    for (const auto& r : status.replicas) {
        objects.insert(r.pod);
    }
    status.diagnosis = backend::kube::diagnose(
        status, backend::kube::parse_events(read_test_data("kube/" + events), objects));
    return status;
}

}  // namespace

TEST_CASE("the phase is the job's last true condition, with its reason", "[cluster][kube]") {
    struct Case {
        const char* file;
        job::JobPhase phase;
        const char* reason;
    };
    const Case cases[] = {
        {"job-v19-created.json", job::JobPhase::Created, "PyTorchJobCreated"},
        {"job-v19-running.json", job::JobPhase::Running, "PyTorchJobRunning"},
        {"job-v19-restarting.json", job::JobPhase::Restarting, "PyTorchJobRestarting"},
        {"job-v19-succeeded.json", job::JobPhase::Succeeded, "PyTorchJobSucceeded"},
        {"job-v19-failed.json", job::JobPhase::Failed, "PyTorchJobFailed"},
        {"job-v19-suspended.json", job::JobPhase::Suspended, "PyTorchJobSuspended"},
        {"job-v15-running.json", job::JobPhase::Running, "PyTorchJobRunning"},
        {"job-v13-running.json", job::JobPhase::Running, "PyTorchJobRunning"},
    };
    for (const auto& c : cases) {
        SECTION(c.file) {
            job::JobStatus status = job_from(c.file);
            CHECK(status.phase == c.phase);
            CHECK(status.reason == c.reason);
            CHECK(status.name == "mnist-ddp");
            CHECK(status.namespace_ == "ml-training");
            CHECK(status.replicas_wanted == 3);
        }
    }
}

TEST_CASE("replica counts and times come from the job's status", "[cluster][kube]") {
    job::JobStatus failed = job_from("job-v19-failed.json");
    CHECK(failed.counts["Master"].failed == 1);
    CHECK(failed.counts["Worker"].active == 2);
    CHECK(failed.started == "2024-05-01T10:00:01Z");
    CHECK(failed.finished == "2024-05-01T10:05:02Z");
    CHECK(failed.message == "PyTorchJob mnist-ddp is failed because 1 Master replica(s) failed.");
}

TEST_CASE("a job with missing fields reads as Unknown without failing", "[cluster][kube]") {
    auto bare = backend::kube::parse_job_status(R"({"kind":"PyTorchJob","metadata":{"name":"x"}})");
    REQUIRE(bare);
    CHECK(bare->phase == job::JobPhase::Unknown);
    CHECK(bare->replicas_wanted == 0);
    auto odd = backend::kube::parse_job_status(
        R"({"kind":"PyTorchJob","status":{"conditions":"yes","replicaStatuses":[1]},"spec":3})");
    REQUIRE(odd);
    CHECK(odd->phase == job::JobPhase::Unknown);
}

TEST_CASE("text that is not a PyTorchJob is an error with exit code 4", "[cluster][kube]") {
    for (const char* text : {"", "not json", "[1,2]", "{\"kind\":\"Pod\"}", "{\"items\":"}) {
        CAPTURE(text);
        auto status = backend::kube::parse_job_status(text);
        REQUIRE_FALSE(status);
        CHECK(status.error_code(0) == 4);
    }
}

TEST_CASE("pods of every operator version become master-0, worker-0, worker-1", "[cluster][kube]") {
    for (const char* file :
         {"pods-v19-running.json", "pods-v15-running.json", "pods-v13-running.json"}) {
        SECTION(file) {
            auto replicas = pods_from(file);
            REQUIRE(replicas.size() == 3);
            CHECK(replicas[0].name == "master-0");
            CHECK(replicas[0].type == "Master");
            CHECK(replicas[1].name == "worker-0");
            CHECK(replicas[2].name == "worker-1");
            CHECK(replicas[2].pod == "mnist-ddp-worker-1");
            CHECK(replicas[2].state == "Running");
            CHECK(replicas[2].node == "gke-ml-pool-1-c1d4");
        }
    }
}

TEST_CASE("pod selectors try the v1.6+ label first, then the older ones", "[cluster][kube]") {
    CHECK(backend::kube::pod_selectors("x") ==
          std::vector<std::string>{"training.kubeflow.org/job-name=x", "job-name=x",
                                   "pytorch-job-name=x"});
    auto selectors = backend::kube::status_selectors(read_test_data("kube/job-v19-running.json"));
    REQUIRE(selectors.size() == 2);
    CHECK(selectors[0].find("training.kubeflow.org/replica-type=master") != std::string::npos);
    CHECK(backend::kube::status_selectors(read_test_data("kube/job-v13-running.json")).empty());
}

TEST_CASE("a replica's reason, restarts and exit code come from its container", "[cluster][kube]") {
    auto crash = pods_from("pods-v19-crashloop.json");
    // The pod is Running, its container waiting in back-off: the replica is restarting (as
    // kubectl get pods shows CrashLoopBackOff), not running.
    CHECK(crash[2].state == "Restarting");
    CHECK(crash[0].state == "Running");
    CHECK(crash[2].reason == "CrashLoopBackOff");
    CHECK(crash[2].restarts == 5);
    CHECK(crash[2].exit_code == 1);
    auto failed = pods_from("pods-v19-failed.json");
    CHECK(failed[0].state == "Failed");
    CHECK(failed[0].reason == "OOMKilled");
    CHECK(failed[0].exit_code == 137);
    auto init = pods_from("pods-v19-init-wait.json");
    CHECK(init[1].reason == "Init:init-pytorch");
    CHECK_FALSE(backend::kube::has_started(init[1]));
}

TEST_CASE("a pod anyone could label with huge numbers reads without stopping status",
          "[cluster][kube]") {
    auto pod = nlohmann::json::parse(R"({
        "metadata": {"name": "mnist-ddp-worker-99999999999",
                     "labels": {"training.kubeflow.org/replica-type": "worker",
                                "training.kubeflow.org/replica-index": "99999999999"}},
        "status": {"phase": "Running", "containerStatuses": [{"name": "pytorch",
            "restartCount": 4611686018427387904, "state": {"running": {}},
            "lastState": {"terminated": {"exitCode": 1099511627776, "reason": "Error"}}}]}})");
    auto r = backend::kube::replica_from_pod(pod, "mnist-ddp");
    CHECK(r.index == -1);  // not an int: no index, not an exception, and never worker-0
    CHECK(r.name == "mnist-ddp-worker-99999999999");
    CHECK(r.odd_identity ==
          "pod mnist-ddp-worker-99999999999: its replica index 99999999999 is "
          "not a number; shown by its pod name");
    CHECK(r.restarts == 0);    // 2^62 restarts is no count
    CHECK_FALSE(r.exit_code);  // 2^40 is no exit code, and not 0 either
    pod["status"]["containerStatuses"][0]["restartCount"] = 3;
    pod["status"]["containerStatuses"][0]["lastState"]["terminated"]["exitCode"] = 137;
    auto restarted = backend::kube::replica_from_pod(pod, "mnist-ddp");
    CHECK(restarted.restarts == 3);
    CHECK(restarted.exit_code == 137);  // running again: the exit code is its previous attempt's
    CHECK(restarted.last_reason == "Error");
}

TEST_CASE("pods whose replica index is no number or repeats never merge into one replica",
          "[cluster][kube]") {
    auto pod = [](const std::string& name, const std::string& index) {
        return nlohmann::json{{"metadata",
                               {{"name", name},
                                {"labels",
                                 {{"training.kubeflow.org/replica-type", "worker"},
                                  {"training.kubeflow.org/replica-index", index}}}}},
                              {"status", {{"phase", "Running"}}}};
    };
    nlohmann::json list = {{"items",
                            {pod("job-worker-0", "0"), pod("job-worker-x", "abc"),
                             pod("job-worker-1", "1"), pod("job-worker-1b", "1")}}};
    auto replicas = backend::kube::parse_pods(list.dump(), "job");
    REQUIRE(replicas.ok());
    std::vector<std::string> names;
    for (const auto& r : *replicas) {
        names.push_back(r.name);
    }
    CHECK(names ==
          std::vector<std::string>{"job-worker-x", "worker-0", "worker-1", "job-worker-1b"});
    CHECK(replicas->at(0).odd_identity ==
          "pod job-worker-x: its replica index abc is not a number; shown by its pod name");
    CHECK(replicas->at(3).odd_identity ==
          "pod job-worker-1b: its replica index 1 of Worker repeats pod job-worker-1's; shown by "
          "its pod name");
    CHECK(replicas->at(1).odd_identity.empty());
}

TEST_CASE("the replica filter picks a type, a replica or a pod", "[cluster][kube]") {
    auto replicas = pods_from("pods-v19-running.json");
    CHECK(job::replica_matches(replicas[1], "worker"));
    CHECK(job::replica_matches(replicas[1], "worker-0"));
    CHECK(job::replica_matches(replicas[1], "Worker"));
    CHECK_FALSE(job::replica_matches(replicas[1], "worker-1"));
    CHECK_FALSE(job::replica_matches(replicas[0], "worker"));
    CHECK(job::replica_matches(replicas[0], ""));
}

TEST_CASE("a stuck job is diagnosed from its pods and events", "[cluster][kube]") {
    struct Case {
        const char* name;
        const char* pods;
        const char* events;
        std::vector<std::string> lines;
    };
    const std::string image = "registry.example.com/ml/kftrain-trainer:0.1.0";
    const std::string init_line =
        ": waiting in init container init-pytorch for the master to start";
    const Case cases[] = {
        {"image pull",
         "pods-v19-imagepull.json",
         "events-v19-imagepull.json",
         {"master-0: ImagePullBackOff: Failed to pull image \"" + image +
              "\": rpc error: code = NotFound desc = failed to pull and unpack image \"" + image +
              "\": failed to resolve reference \"" + image + "\": " + image + ": not found",
          "worker-0" + init_line, "worker-1" + init_line}},
        {"unschedulable",
         "pods-v19-unschedulable.json",
         "events-v19-unschedulable.json",
         {"master-0: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu.",
          "worker-0" + init_line, "worker-1" + init_line}},
        {"pending with a warning event",
         "pods-v19-creating.json",
         "events-v19-creating.json",
         {"master-0: Pending: FailedMount: MountVolume.SetUp failed for volume \"data\" : "
          "configmap \"mnist-data\" not found",
          // The workers' containers wait as PodInitializing behind init-pytorch, as a real
          // kubelet reports them (kubectl: Init:0/1).
          "worker-0" + init_line, "worker-1" + init_line}},
        {"crash loop",
         "pods-v19-crashloop.json",
         "events-empty.json",
         {"worker-1: CrashLoopBackOff: the container keeps crashing (restarted 5 times, last exit "
          "code 1); see 'kftrain logs --previous --replica worker-1'"}},
        {"running fine", "pods-v19-running.json", "events-empty.json", {}},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            CHECK(diagnosed("job-v19-created.json", c.pods, c.events).diagnosis == c.lines);
        }
    }
}

TEST_CASE("a failed replica is named with its reason and exit code", "[cluster][kube]") {
    auto status = diagnosed("job-v19-failed.json", "pods-v19-failed.json", "events-empty.json");
    CHECK(status.diagnosis ==
          std::vector<std::string>{"master-0: Failed (OOMKilled, exit code 137)"});
}

TEST_CASE("a created job without pods says so", "[cluster][kube]") {
    auto status = diagnosed("job-v19-created.json", "pods-empty.json", "events-empty.json");
    CHECK(status.diagnosis ==
          std::vector<std::string>{"no pods yet: the operator has not created them"});
}

TEST_CASE("events keep only the job's objects, newest last", "[cluster][kube]") {
    auto events = backend::kube::parse_events(read_test_data("kube/events-v19-imagepull.json"),
                                              {"mnist-ddp", "mnist-ddp-master-0"});
    // The pod's Scheduled, Pulling, Failed (the pull's error, then "Error: ErrImagePull"),
    // BackOff and Failed ("Error: ImagePullBackOff") events, as a real kubelet records them.
    REQUIRE(events.size() == 8);
    CHECK(events.front().reason == "SuccessfulCreatePod");
    CHECK(events.back().reason == "BackOff");
    CHECK(events.back().count == 9);
    auto scheduler = backend::kube::parse_events(
        read_test_data("kube/events-v19-unschedulable.json"), {"mnist-ddp-master-0"});
    // The scheduler's first attempt, then a second Event whose series counts the retries.
    REQUIRE(scheduler.size() == 2);
    CHECK(scheduler[0].time == "2024-05-01T10:00:01.123456Z");
    CHECK(scheduler[0].count == 1);
    // events.k8s.io events have no count or lastTimestamp: their series says how often and
    // when last.
    CHECK(scheduler[1].count == 4);
    CHECK(scheduler[1].time == "2024-05-01T10:02:05.345678Z");
    // Events before the job was created are an earlier job's of the same name: left out.
    auto since = backend::kube::parse_events(read_test_data("kube/events-v19-unschedulable.json"),
                                             {"mnist-ddp-master-0"}, "2024-05-01T10:00:02Z");
    REQUIRE(since.size() == 1);
    CHECK(since[0].count == 4);
    CHECK(backend::kube::parse_events(read_test_data("kube/events-v19-unschedulable.json"),
                                      {"mnist-ddp-master-0"}, "2024-05-01T10:00:01Z")
              .size() == 2);
    CHECK(backend::kube::parse_events("garbage", {"x"}).empty());
}

TEST_CASE("status reads each replica type's resource requests from the job", "[cluster][kube]") {
    const double gib = 1024.0 * 1024.0 * 1024.0;
    SECTION("CPU replicas: requests") {
        job::JobStatus status = job_from("job-v19-succeeded.json");
        REQUIRE(status.requests.size() == 2);
        CHECK(status.requests[0].type == "Master");
        CHECK(status.requests[0].replicas == 1);
        CHECK(status.requests[1].type == "Worker");
        CHECK(status.requests[1].replicas == 2);
        CHECK(status.requests[1].cpu_cores == 2);
        CHECK(status.requests[1].memory_bytes == 4 * gib);
        CHECK(status.requests[1].gpus == 0);
        CHECK(status.node_selector.empty());
    }
    SECTION("GPU replicas: GPUs from the limits, and the node selector") {
        job::JobStatus status = job_from("job-v19-gpu-succeeded.json");
        REQUIRE(status.requests.size() == 2);
        CHECK(status.requests[1].gpus == 1);
        CHECK(status.requests[1].cpu_cores == 8);
        CHECK(status.requests[1].memory_bytes == 32 * gib);
        CHECK(status.node_selector.at("cloud.google.com/gke-accelerator") == "nvidia-tesla-a100");
    }
    SECTION("limits only, millicores and a sidecar before the training container") {
        auto parsed = backend::kube::parse_job_status(R"({"kind": "PyTorchJob",
            "metadata": {"name": "j"},
            "spec": {"pytorchReplicaSpecs": {"Master": {"template": {"spec": {"containers": [
                {"name": "istio-proxy", "resources": {"requests": {"cpu": "100m"}}},
                {"name": "pytorch", "resources": {"limits": {"cpu": "1500m", "memory": 1073741824}}}
            ]}}}}}})");
        REQUIRE(parsed);
        REQUIRE(parsed->requests.size() == 1);
        CHECK(parsed->requests[0].replicas == 1);
        CHECK(parsed->requests[0].cpu_cores == 1.5);
        CHECK(parsed->requests[0].memory_bytes == gib);
    }
}

TEST_CASE("a job the operator failed without a completionTime ended when it turned Failed",
          "[cluster][kube]") {
    // What the v1.9 operator writes for a replica that failed with restartPolicy ExitCode
    // (seen from the cluster suite's stand-in, which follows common/job.go).
    auto status = backend::kube::parse_job_status(R"({"kind":"PyTorchJob","metadata":{"name":"x"},
        "status":{"startTime":"2026-11-27T20:00:00Z","conditions":[
          {"type":"Created","status":"True","lastTransitionTime":"2026-11-27T19:59:59Z"},
          {"type":"Failed","status":"True","reason":"PyTorchJobFailed",
           "lastTransitionTime":"2026-11-27T20:01:30Z"}]}})");
    REQUIRE(status);
    CHECK(status->phase == job::JobPhase::Failed);
    CHECK(status->finished == "2026-11-27T20:01:30Z");
    // A running job has not finished, whatever its conditions' times.
    auto running = backend::kube::parse_job_status(R"({"kind":"PyTorchJob","metadata":{"name":"x"},
        "status":{"conditions":[{"type":"Running","status":"True",
          "lastTransitionTime":"2026-11-27T20:00:00Z"}]}})");
    REQUIRE(running);
    CHECK(running->finished.empty());
}
