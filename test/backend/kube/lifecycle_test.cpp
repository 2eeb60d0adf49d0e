#include "job/lifecycle.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/kube/lifecycle_patch.h"
#include "backend/kube/status/status.h"
#include "backend/kube/status/trainjob_status.h"
#include "support/test_data.h"

using namespace kftrain;

namespace job = kftrain::job;
namespace kube = kftrain::backend::kube;
using job::Change;
using job::JobPhase;
using nlohmann::json;

namespace {

job::JobStatus with(JobPhase phase, std::vector<std::string> replica_states) {
    job::JobStatus status;
    status.name = "mnist-ddp";
    status.phase = phase;
    for (const auto& state : replica_states) {
        job::ReplicaStatus replica;
        replica.state = state;
        status.replicas.push_back(replica);
    }
    return status;
}

json kube_file(const std::string& name) {
    return json::parse(kftrain::test::read_test_data("kube/" + name));
}

}  // namespace

TEST_CASE("suspend and resume refuse a finished job, naming it and its state", "[lifecycle]") {
    auto done = with(JobPhase::Succeeded, {});
    auto check = job::check_change(Change::Suspend, done);
    REQUIRE_FALSE(check);
    CHECK(check.error() ==
          "cannot suspend pytorchjob/mnist-ddp: it has already Succeeded and will not run again");
    CHECK(check.error_code(0) == 2);
    done.kind = "TrainJob";
    done.phase = JobPhase::Failed;
    CHECK(job::check_change(Change::Resume, done).error() ==
          "cannot resume trainjob/mnist-ddp: it has already Failed and will not run again");
    for (JobPhase phase : {JobPhase::Created, JobPhase::Running, JobPhase::Restarting,
                           JobPhase::Suspended, JobPhase::Unknown}) {
        CHECK(job::check_change(Change::Suspend, with(phase, {})));
        CHECK(job::check_change(Change::Resume, with(phase, {})));
    }
}

TEST_CASE("a suspend settles once nothing runs, a resume once a replica is back", "[lifecycle]") {
    struct Case {
        const char* name;
        Change change;
        job::JobStatus status;
        bool settled;
    };
    const Case cases[] = {
        {"suspended, pods gone", Change::Suspend, with(JobPhase::Suspended, {}), true},
        {"suspended, pods stopped", Change::Suspend,
         with(JobPhase::Suspended, {"Terminated", "Failed"}), true},
        {"suspended, a pod left", Change::Suspend, with(JobPhase::Suspended, {"Running", ""}),
         false},
        // A real pod after its deletion: the trainer still checkpoints in it.
        {"suspended, a pod terminating", Change::Suspend,
         with(JobPhase::Suspended, {"Terminating"}), false},
        {"not yet suspended", Change::Suspend, with(JobPhase::Running, {}), false},
        {"resumed, pods pending", Change::Resume, with(JobPhase::Created, {"Pending"}), true},
        {"resumed, pods running", Change::Resume, with(JobPhase::Running, {"Running"}), true},
        {"resumed, no pod yet", Change::Resume, with(JobPhase::Created, {}), false},
        {"still suspended", Change::Resume, with(JobPhase::Suspended, {"Running"}), false},
        {"ended since", Change::Resume, with(JobPhase::Succeeded, {}), true},
    };
    for (const auto& c : cases) {
        CAPTURE(c.name);
        CHECK(job::change_settled(c.change, c.status) == c.settled);
    }
}

TEST_CASE("the suspend patch sets runPolicy.suspend or spec.suspend by kind", "[lifecycle]") {
    CHECK(backend::kube::suspend_patch(kftrain::manifest::JobKind::PyTorchJob, true) ==
          R"({"spec":{"runPolicy":{"suspend":true}}})");
    CHECK(backend::kube::suspend_patch(kftrain::manifest::JobKind::PyTorchJob, false) ==
          R"({"spec":{"runPolicy":{"suspend":false}}})");
    CHECK(backend::kube::suspend_patch(kftrain::manifest::JobKind::TrainJob, true) ==
          R"({"spec":{"suspend":true}})");
    CHECK(backend::kube::suspend_patch(kftrain::manifest::JobKind::TrainJob, false) ==
          R"({"spec":{"suspend":false}})");
}

TEST_CASE("the scale patch stays within elasticPolicy and refuses what cannot scale",
          "[lifecycle]") {
    json elastic = kube_file("job-v19-elastic-running.json");
    for (int workers : {2, 4, 6}) {
        auto body = backend::kube::scale_patch(elastic, workers);
        REQUIRE(body);
        CHECK(*body == R"({"spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":)" +
                           std::to_string(workers) + "}}}}");
    }
    auto above = backend::kube::scale_patch(elastic, 7);
    REQUIRE_FALSE(above);
    CHECK(above.error() ==
          "--replicas: must be within mnist-ddp's elasticPolicy minReplicas..maxReplicas (2..6) "
          "(got 7)");
    CHECK(above.error_code(0) == 2);
    elastic["spec"]["elasticPolicy"].erase("maxReplicas");
    elastic["spec"]["elasticPolicy"].erase("minReplicas");
    CHECK(backend::kube::scale_patch(elastic, 40));
    CHECK(backend::kube::scale_patch(elastic, 0).error() ==
          "--replicas: must be within mnist-ddp's elasticPolicy minReplicas..maxReplicas (1 or "
          "more) (got 0)");
    CHECK(backend::kube::scale_patch(kube_file("job-v19-running.json"), 3).error() ==
          "cannot scale pytorchjob/mnist-ddp: it is not elastic (its spec has no elasticPolicy); "
          "set elasticPolicy.minReplicas and maxReplicas in the job file and submit it again");
    // kftrain-trainer takes its world size once, at start: a scaled job would never regroup.
    json trainer = kube_file("job-v19-elastic-running.json");
    trainer["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
           ["command"] = json::array({"/usr/local/bin/kftrain-trainer"});
    const auto fixed = backend::kube::scale_patch(trainer, 4);
    REQUIRE_FALSE(fixed);
    CHECK(fixed.error_code(0) == 2);
    CHECK(fixed.error() ==
          "cannot scale pytorchjob/mnist-ddp: its replicas run kftrain-trainer, whose world size "
          "is fixed when it starts (it does no elastic rendezvous), so a Worker added or removed "
          "now would never join or be missed; delete the job and submit it with the replicas you "
          "want (the trainer resumes from its newest checkpoint)");
    CHECK(backend::kube::scale_patch(kube_file("trainjob-v23-running.json"), 3).error() ==
          "cannot scale trainjob/mnist-trainjob: scaling a TrainJob is not supported by Kubeflow "
          "Trainer yet (only elastic PyTorchJobs scale)");
}

TEST_CASE("status reads since when a job is suspended and never calls a resumed job Suspended",
          "[lifecycle]") {
    auto suspended = backend::kube::job_status_from(kube_file("job-v19-suspended.json"));
    CHECK(suspended.phase == JobPhase::Suspended);
    CHECK(suspended.suspended_since == "2024-05-01T10:03:00Z");
    // The last condition is Suspended (False): kubectl's State column says Suspended.
    auto resumed = backend::kube::job_status_from(kube_file("job-v19-resumed.json"));
    CHECK(resumed.phase == JobPhase::Created);
    CHECK(resumed.suspended_since == "");
    auto trainjob = backend::kube::trainjob_status_from(kube_file("trainjob-v23-suspended.json"));
    CHECK(trainjob.phase == JobPhase::Suspended);
    CHECK(trainjob.suspended_since == "2026-05-01T10:00:00Z");
    auto trainjob_resumed =
        backend::kube::trainjob_status_from(kube_file("trainjob-v23-resumed.json"));
    CHECK(trainjob_resumed.phase != JobPhase::Suspended);
    CHECK(trainjob_resumed.suspended_since == "");
}
