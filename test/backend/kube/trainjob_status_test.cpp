#include "backend/kube/status/trainjob_status.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "backend/kube/status/events.h"
#include "backend/kube/status/pods.h"
#include "progress/trainer_status.h"
#include "support/test_data.h"

using namespace kftrain;
using kftrain::test::read_test_data;
using nlohmann::json;

namespace {

json trainjob(const std::string& state) {
    return json::parse(read_test_data("kube/trainjob-v23-" + state + ".json"));
}

std::vector<job::ReplicaStatus> pods(const std::string& state) {
    auto replicas = backend::kube::parse_pods(
        read_test_data("kube/pods-trainjob-v23-" + state + ".json"), "mnist-trainjob");
    REQUIRE(replicas);
    return *replicas;
}

// A TrainJob with its pods, read as the backend reads it.
job::JobStatus with_pods(const std::string& job_state, const std::string& pod_state) {
    job::JobStatus status = backend::kube::trainjob_status_from(trainjob(job_state));
    status.replicas = pods(pod_state);
    backend::kube::settle_trainjob_status(status);
    return status;
}

}  // namespace

TEST_CASE("a TrainJob's phase comes from its conditions, else from jobsStatus", "[cluster][kube]") {
    struct Case {
        const char* state;
        job::JobPhase phase;
        const char* reason;
        const char* message;
    };
    const Case cases[] = {
        {"created", job::JobPhase::Created, "", ""},
        {"running", job::JobPhase::Running, "", ""},
        {"complete", job::JobPhase::Succeeded, "AllJobsCompleted", "jobset completed successfully"},
        {"failed-deadline", job::JobPhase::Failed, "DeadlineExceeded",
         "TrainJob exceeded its active deadline"},
        {"suspended", job::JobPhase::Suspended, "Suspended", "TrainJob is suspended"},
        // kubectl's State column says Suspended (the last condition's type): it is running.
        {"resumed", job::JobPhase::Running, "", ""},
        // The dataset initializer's pods are ready: the job is under way.
        {"init-running", job::JobPhase::Running, "", ""},
    };
    for (const auto& c : cases) {
        SECTION(c.state) {
            job::JobStatus status = backend::kube::trainjob_status_from(trainjob(c.state));
            CHECK(status.kind == "TrainJob");
            CHECK(status.name == "mnist-trainjob");
            CHECK(status.namespace_ == "ml-training");
            CHECK(status.phase == c.phase);
            CHECK(status.reason == c.reason);
            CHECK(status.message == c.message);
        }
    }
}

TEST_CASE("a TrainJob created suspended is Suspended before the controller says so",
          "[cluster][kube]") {
    json job = trainjob("created");
    job["spec"]["suspend"] = true;
    job.erase("status");
    CHECK(backend::kube::trainjob_status_from(job).phase == job::JobPhase::Suspended);
}

TEST_CASE("a TrainJob's times: finished from its last condition, started when resumed",
          "[cluster][kube]") {
    job::JobStatus complete = backend::kube::trainjob_status_from(trainjob("complete"));
    CHECK(complete.created == "2026-05-01T10:00:00Z");
    CHECK(complete.started == "");
    CHECK(complete.finished == "2026-05-01T10:07:40Z");
    job::JobStatus resumed = backend::kube::trainjob_status_from(trainjob("resumed"));
    CHECK(resumed.started == "2026-05-01T10:20:00Z");
    CHECK(resumed.finished == "");
}

TEST_CASE("numNodes and resourcesPerNode are the wanted replicas and what each costs",
          "[cluster][kube]") {
    job::JobStatus cpu = backend::kube::trainjob_status_from(trainjob("running"));
    CHECK(cpu.replicas_wanted == 2);
    REQUIRE(cpu.requests.size() == 1);
    CHECK(cpu.requests[0].type == "Node");
    CHECK(cpu.requests[0].replicas == 2);
    CHECK(cpu.requests[0].cpu_cores == 2);
    CHECK(cpu.requests[0].memory_bytes == 4.0 * 1024 * 1024 * 1024);
    CHECK(cpu.requests[0].gpus == 0);
    job::JobStatus gpu = backend::kube::trainjob_status_from(trainjob("gpu-complete"));
    CHECK(gpu.requests.at(0).gpus == 1);
    CHECK(gpu.requests.at(0).cpu_cores == 8);
    // The node selector a runtime patch gives the node step, where the GPU type shows.
    CHECK(gpu.node_selector == std::map<std::string, std::string>{
                                   {"cloud.google.com/gke-accelerator", "nvidia-tesla-a100"}});
}

TEST_CASE("node counts come from jobsStatus, then from the pods", "[cluster][kube]") {
    CHECK(backend::kube::trainjob_status_from(trainjob("running")).counts.at("Node").active == 2);
    CHECK(backend::kube::trainjob_status_from(trainjob("complete")).counts.at("Node").succeeded ==
          2);
    job::JobStatus restarted = with_pods("running", "restarted");
    CHECK(restarted.counts.at("Node").active == 2);
    job::JobStatus done = with_pods("init-done", "init-done");
    CHECK(done.counts.size() == 1);  // the initializer is a step, not a replica
    CHECK(done.counts.at("Node").active == 2);
}

TEST_CASE("a TrainJob is Running once one of its pods runs, Created while all wait",
          "[cluster][kube]") {
    CHECK(with_pods("created", "creating").phase == job::JobPhase::Created);
    CHECK(with_pods("pending", "unschedulable").phase == job::JobPhase::Created);
    CHECK(with_pods("created", "running").phase == job::JobPhase::Running);
    json no_nodes = trainjob("running");
    no_nodes["spec"]["trainer"].erase("numNodes");
    job::JobStatus counted = backend::kube::trainjob_status_from(no_nodes);
    counted.replicas = pods("running");
    backend::kube::settle_trainjob_status(counted);
    CHECK(counted.replicas_wanted == 2);
    CHECK(counted.requests.at(0).replicas == 2);
}

TEST_CASE("JobSet pods are named by their completion index, never their random suffix",
          "[cluster][kube]") {
    auto replicas = pods("running-unordered");  // node-1's pod sorts first by name
    REQUIRE(replicas.size() == 2);
    CHECK(replicas[0].name == "node-0");
    CHECK(replicas[0].pod == "mnist-trainjob-node-0-0-z8y6w");
    CHECK(replicas[0].type == "Node");
    CHECK(replicas[0].container == "node");
    CHECK(replicas[1].name == "node-1");
    CHECK(replicas[1].index == 1);
    CHECK(replicas[1].node == "gke-ml-pool-1-c3d4");
    auto steps = pods("init-done");
    REQUIRE(steps.size() == 3);
    CHECK(steps[0].name == "dataset-initializer");  // steps first: they run first
    CHECK(steps[0].type == "dataset-initializer");
    CHECK(steps[0].container == "dataset-initializer");
    CHECK(steps[0].state == "Succeeded");
    CHECK(steps[1].name == "node-0");
    CHECK(steps[2].name == "node-1");
}

TEST_CASE("a TrainJob's stuck or crashing nodes are diagnosed as a PyTorchJob's replicas",
          "[cluster][kube]") {
    job::JobStatus crashing = with_pods("running", "crashloop");
    const auto& node1 = crashing.replicas.at(1);
    CHECK(node1.reason == "CrashLoopBackOff");
    CHECK(node1.restarts == 3);
    CHECK(node1.exit_code == 1);
    CHECK(backend::kube::diagnose(crashing, {}) ==
          std::vector<std::string>{
              "node-1: CrashLoopBackOff: the container keeps crashing (restarted 3 times, last "
              "exit code 1); see 'kftrain logs --previous --replica node-1'"});
    job::JobStatus pending = with_pods("pending", "unschedulable");
    auto lines = backend::kube::diagnose(pending, {});
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] ==
          "node-0: Unschedulable: 0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 "
          "nodes are available: 3 No preemption victims found for incoming pod.");
}

TEST_CASE("trainerStatus reads into the progress status shows", "[cluster][kube]") {
    job::JobStatus status = backend::kube::trainjob_status_from(trainjob("running-progress"));
    REQUIRE(status.progress);
    const job::Progress& p = *status.progress;
    CHECK(p.event == "progress");
    CHECK(p.percent == 45.0);
    CHECK(p.eta_s == 100.0);
    CHECK(p.loss == Approx(0.3121));
    CHECK(p.accuracy == Approx(0.912));
    CHECK(p.samples_per_sec == Approx(1234.4));
    CHECK(p.epoch == 2);
    CHECK(p.epochs == 3);
    CHECK(p.time == "2026-05-01T10:03:12Z");
    CHECK_FALSE(backend::kube::trainjob_status_from(trainjob("running")).progress);
}

TEST_CASE("trainerStatus metrics named as the Kubeflow SDK and Transformers name them",
          "[cluster][kube]") {
    json status = {{"progressPercentage", 12},
                   {"lastUpdatedTime", "2026-05-01T10:03:12Z"},
                   {"metrics",
                    {{{"name", "train_loss"}, {"value", "0.52"}},
                     {{"name", "eval_accuracy"}, {"value", "98.76"}},
                     {{"name", "epoch"}, {"value", "1.4"}},
                     {{"name", "learning_rate"}, {"value", "5e-05"}},
                     {{"name", "grad_norm"}, {"value", "1.7"}},
                     {{"name", "loss"}, {"value", "not a number"}}}}};
    auto p = progress::trainer_status_progress(status);
    REQUIRE(p);
    CHECK(p->loss == Approx(0.52));
    CHECK(p->accuracy == Approx(0.9876));  // a percentage, read as a fraction
    CHECK(p->epoch == 2);                  // 1.4 epochs done: in the second
    CHECK(p->lr == Approx(5e-05));
    // The trainer posts eval_accuracy beside accuracy: the progress shows the training one.
    auto both = progress::trainer_status_progress({{"metrics",
                                                    {{{"name", "eval_accuracy"}, {"value", "0.95"}},
                                                     {{"name", "accuracy"}, {"value", "0.91"}}}}});
    REQUIRE(both);
    CHECK(both->accuracy == Approx(0.91));
    CHECK_FALSE(progress::trainer_status_progress(json::object()));
    // A metric of the program's own is kept by name, and is progress enough to show.
    auto own = progress::trainer_status_progress(
        {{"lastUpdatedTime", "2026-05-01T10:03:12Z"},
         {"metrics", {{{"name", "grad_norm"}, {"value", "1.7"}}}}});
    REQUIRE(own);
    CHECK(own->metrics == std::vector<std::pair<std::string, std::string>>{{"grad_norm", "1.7"}});
    CHECK(p->metrics.size() == 6);
}

TEST_CASE("a TrainJob's pods are every step of the JobSet of its name", "[cluster][kube]") {
    CHECK(backend::kube::trainjob_pod_selector("mnist-trainjob") ==
          "jobset.sigs.k8s.io/jobset-name=mnist-trainjob");
}
