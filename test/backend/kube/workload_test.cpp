#include "backend/kube/kueue/workload.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/view/queue_view.h"
#include "job/wait_condition.h"
#include "support/fake_cluster.h"
#include "support/test_data.h"

using namespace kftrain;
using namespace kftrain::cli;
using nlohmann::json;

namespace {

const char* const k_tj_uid = "9d2c4e1a-5b7f-4c3e-8a1d-2f6b0c9e7a41";

json data(const std::string& name) {
    return json::parse(kftrain::test::read_test_data("kube/" + name));
}

job::QueueStatus pj_status(const std::string& file) {
    json list = data(file);
    const json* workload = backend::kube::find_workload(list, "PyTorchJob", "mnist-ddp",
                                                        kftrain::test::k_mnist_ddp_uid);
    REQUIRE(workload != nullptr);
    return backend::kube::interpret_workload(*workload);
}

}  // namespace

TEST_CASE("a Workload's conditions say where the job stands in its queue", "[kueue]") {
    struct Case {
        const char* file;
        job::QueueState state;
        const char* cluster_queue;
        const char* reason;
        const char* evicted_reason;
    };
    const Case cases[] = {
        {"workloads-v19-pending.json", job::QueueState::Pending, "", "Pending", ""},
        {"workloads-v19-admitted.json", job::QueueState::Admitted, "gpu", "Admitted", ""},
        {"workloads-v19-evicted.json", job::QueueState::Evicted, "gpu", "Preempted", "Preempted"},
        {"workloads-v19-requeued.json", job::QueueState::Pending, "", "Pending", "Preempted"},
    };
    for (const auto& c : cases) {
        INFO(c.file);
        auto status = pj_status(c.file);
        CHECK(status.state == c.state);
        CHECK(status.cluster_queue == c.cluster_queue);
        CHECK(status.reason == c.reason);
        CHECK(status.evicted_reason == c.evicted_reason);
        CHECK(status.local_queue == "team-a");
        CHECK(status.priority_class == "high");
        CHECK(status.priority == 1000);
        CHECK(status.workload == "pytorchjob-mnist-ddp-3f9a2");
        CHECK(status.queued_since == "2024-05-01T10:00:00Z");
    }
}

TEST_CASE("a TrainJob's Workload is found by its owner and read the same way", "[kueue]") {
    json list = data("workloads-v23-admitted.json");
    CHECK(backend::kube::find_workload(list, "PyTorchJob", "mnist-trainjob", k_tj_uid) == nullptr);
    CHECK(backend::kube::find_workload(list, "TrainJob", "mnist-trainjob", "another-uid") ==
          nullptr);
    const json* workload =
        backend::kube::find_workload(list, "TrainJob", "mnist-trainjob", k_tj_uid);
    REQUIRE(workload != nullptr);
    auto status = backend::kube::interpret_workload(*workload);
    CHECK(status.state == job::QueueState::Admitted);
    CHECK(status.cluster_queue == "gpu");
    CHECK(status.priority_class == "");
    CHECK(job::format_queue_state(status) == "Admitted to gpu");
}

TEST_CASE("of several Workloads the job's newest unfinished one counts, another job's never",
          "[kueue]") {
    json list = data("workloads-v19-requeued.json");  // bert-finetune's first, then ours
    const json* ours = backend::kube::find_workload(list, "PyTorchJob", "mnist-ddp", "");
    REQUIRE(ours != nullptr);
    CHECK((*ours)["metadata"]["name"] == "pytorchjob-mnist-ddp-3f9a2");
    json finished = list["items"][1];
    finished["metadata"]["name"] = "pytorchjob-mnist-ddp-old";
    finished["metadata"]["creationTimestamp"] = "2024-05-02T00:00:00Z";
    finished["status"]["conditions"] =
        json::array({{{"type", "Finished"}, {"status", "True"}, {"reason", "Succeeded"}}});
    list["items"].push_back(finished);
    CHECK((*backend::kube::find_workload(list, "PyTorchJob", "mnist-ddp",
                                         ""))["metadata"]["name"] == "pytorchjob-mnist-ddp-3f9a2");
}

TEST_CASE("positions come 1-based from the pending workloads of the LocalQueue", "[kueue]") {
    auto status = pj_status("workloads-v19-pending.json");
    status.cluster_queue = "gpu";
    backend::kube::apply_positions(status, data("pending-team-a.json"));
    CHECK(status.position == 3);
    CHECK(status.pending_in_queue == 7);
    CHECK(status.position_in_cluster == 12);
    status.message.clear();
    CHECK(job::format_queue_state(status) ==
          "Queued in team-a (position 3 of 7 in team-a, 12 in cluster-queue gpu)");

    auto unlisted = pj_status("workloads-v19-pending.json");
    backend::kube::apply_positions(unlisted, data("pending-team-a-trainjob.json"));
    CHECK_FALSE(unlisted.position);
    CHECK(backend::kube::pending_workloads_path("v1beta2", "ml", "team-a") ==
          "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/ml/localqueues/team-a/"
          "pendingworkloads");
}

TEST_CASE("the State line shows the queue until the job's pods run", "[kueue]") {
    job::JobStatus status;
    status.phase = job::JobPhase::Suspended;
    CHECK_FALSE(view::shows_queue(status));
    status.queue = pj_status("workloads-v19-admitted.json");
    CHECK(view::shows_queue(status));
    status.phase = job::JobPhase::Running;
    CHECK_FALSE(view::shows_queue(status));
    status.queue = pj_status("workloads-v19-evicted.json");
    CHECK(view::shows_queue(status));  // still running, but being evicted
    status.phase = job::JobPhase::Succeeded;
    CHECK_FALSE(view::shows_queue(status));
}

TEST_CASE("wait --for admitted is met once the queue admits the job, or at once in none",
          "[kueue]") {
    using job::judge_wait;
    using job::WaitFor;
    using job::WaitVerdict;
    job::JobStatus status;
    status.phase = job::JobPhase::Suspended;
    CHECK(judge_wait(WaitFor::Admitted, status) == WaitVerdict::Met);  // in no queue
    status.queue = pj_status("workloads-v19-pending.json");
    CHECK(judge_wait(WaitFor::Admitted, status) == WaitVerdict::Pending);
    CHECK(judge_wait(WaitFor::Running, status) == WaitVerdict::Pending);
    status.queue = pj_status("workloads-v19-evicted.json");
    CHECK(judge_wait(WaitFor::Admitted, status) == WaitVerdict::Pending);
    status.queue = pj_status("workloads-v19-admitted.json");
    status.phase = job::JobPhase::Created;
    CHECK(judge_wait(WaitFor::Admitted, status) == WaitVerdict::Met);
    status.phase = job::JobPhase::Failed;
    CHECK(judge_wait(WaitFor::Admitted, status) == WaitVerdict::Failed);
    CHECK(job::parse_wait_for("admitted") == WaitFor::Admitted);
}

TEST_CASE("LocalQueues are read with their ClusterQueue, counts and activity", "[kueue]") {
    auto queues = backend::kube::local_queues_from(data("localqueues-ml-training.json"));
    REQUIRE(queues.size() == 3);
    CHECK(queues[0].name == "team-a");
    CHECK(queues[0].cluster_queue == "gpu");
    CHECK(queues[0].pending == 7);
    CHECK(queues[0].reserving == 2);
    CHECK(queues[0].admitted == 2);
    CHECK(queues[0].active);
    CHECK_FALSE(queues[2].active);
    CHECK(queues[2].reason == "ClusterQueueDoesNotExist");
}
