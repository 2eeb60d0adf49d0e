#include "diagnose/quota_refusal.h"

#include <catch2/catch.hpp>

#include "diagnose/diagnosis.h"

namespace kftrain::diagnose {
namespace {

// The API server's words as a real 1.20 API server says them.
const char* const k_cpu_refusal =
    "pods \"p5\" is forbidden: exceeded quota: team-quota, requested: requests.cpu=400m, "
    "used: requests.cpu=900m, limited: requests.cpu=1";

ReplicaEvidence pod(const std::string& name, const std::string& state) {
    ReplicaEvidence r;
    r.name = name;
    r.state = state;
    return r;
}

// A PyTorchJob "mnist" of 4 replicas, 2 of them created and running, with these events.
JobEvidence job_missing_two(std::vector<EventEvidence> events) {
    JobEvidence job;
    job.name = "mnist";
    job.kind = "PyTorchJob";
    job.phase = "Created";
    job.replicas_wanted = 4;
    job.replicas = {pod("master-0", "Running"), pod("worker-0", "Running")};
    job.events = std::move(events);
    return job;
}

EventEvidence refused(const std::string& object, const std::string& reason,
                      const std::string& error) {
    return {object, reason, "Error creating: " + error, "2026-05-01T10:00:09Z", true};
}

}  // namespace

TEST_CASE("parse_quota_refusal reads each refusal shape of the API server", "[diagnose][quota]") {
    struct Case {
        const char* name;
        std::string message;
        const char* quota;
        const char* pod;
        std::vector<QuotaAmount> amounts;
        std::vector<std::string> must_specify;
    };
    const Case cases[] = {
        {"cpu", k_cpu_refusal, "team-quota", "p5", {{"requests.cpu", "400m", "900m", "1"}}, {}},
        {"an extended resource",
         "pods \"p6\" is forbidden: exceeded quota: team-quota, requested: "
         "requests.nvidia.com/gpu=2, used: requests.nvidia.com/gpu=0, limited: "
         "requests.nvidia.com/gpu=1",
         "team-quota",
         "p6",
         {{"requests.nvidia.com/gpu", "2", "0", "1"}},
         {}},
        {"several resources, the operator's event",
         "Error creating: pods \"mnist-worker-1\" is forbidden: exceeded quota: q1, requested: "
         "limits.memory=2Gi,requests.cpu=2, used: limits.memory=3Gi,requests.cpu=7, limited: "
         "limits.memory=4Gi,requests.cpu=8",
         "q1",
         "mnist-worker-1",
         {{"limits.memory", "2Gi", "3Gi", "4Gi"}, {"requests.cpu", "2", "7", "8"}},
         {}},
        {"the recorder's combined event",
         "(combined from similar events): Error creating: pods \"a-0-1-x7k2p\" is forbidden: "
         "exceeded quota: q, requested: pods=1, used: pods=10, limited: pods=10",
         "q",
         "a-0-1-x7k2p",
         {{"pods", "1", "10", "10"}},
         {}},
        {"must specify",
         "pods \"x\" is forbidden: failed quota: team-quota: must specify limits.cpu,limits.memory",
         "team-quota",
         "x",
         {},
         {"limits.cpu", "limits.memory"}},
        {"must specify, newer servers' words",
         "pods \"x\" is forbidden: failed quota: team-quota: must specify limits.cpu for: "
         "pytorch; limits.memory for: pytorch,init-pytorch",
         "team-quota",
         "x",
         {},
         {"limits.cpu", "limits.memory"}},
        {"numbers cut off",
         "pods \"p5\" is forbidden: exceeded quota: team-quota, requested: requests.cpu=400m, "
         "used: requests.cp",
         "team-quota",
         "p5",
         {},
         {}},
        {"lists that disagree",
         "pods \"p5\" is forbidden: exceeded quota: team-quota, requested: requests.cpu=400m, "
         "used: requests.memory=1, limited: requests.cpu=1",
         "team-quota",
         "p5",
         {},
         {}},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        auto refusal = parse_quota_refusal(c.message);
        REQUIRE(refusal);
        CHECK(refusal->quota == c.quota);
        CHECK(refusal->pod == c.pod);
        REQUIRE(refusal->amounts.size() == c.amounts.size());
        for (size_t i = 0; i < c.amounts.size(); ++i) {
            CHECK(refusal->amounts[i].resource == c.amounts[i].resource);
            CHECK(refusal->amounts[i].requested == c.amounts[i].requested);
            CHECK(refusal->amounts[i].used == c.amounts[i].used);
            CHECK(refusal->amounts[i].limited == c.amounts[i].limited);
        }
        CHECK(refusal->must_specify == c.must_specify);
    }
}

TEST_CASE("parse_quota_refusal gives nothing for other errors, garbage and cut names",
          "[diagnose][quota]") {
    static const char k_with_nul[] = "pods \"p\" is forbidden: exceeded quota: q\0x, requested:";
    const std::string cases[] = {
        "",
        "Created pod: mnist-master-0",
        "Error creating: pods \"p\" is forbidden: error looking up service account default/x",
        "Error creating: Internal error occurred: failed calling webhook",
        "pods \"p5\" is forbidden: exceeded quota: team-quo",
        "pods \"p5\" is forbidden: exceeded quota: Team Quota!, requested: pods=1",
        "pods \"p5\" is forbidden: failed quota: team-quota",
        "pods \"p5",
        "pods \"",
        "pods \"P 5\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: "
        "pods=1",
        std::string(100000, ','),
        "pods \"p\" is forbidden: exceeded quota: " + std::string(300, 'q') + ", requested: ",
        std::string(k_with_nul, sizeof(k_with_nul) - 1),
    };
    for (const std::string& text : cases) {
        INFO(text.substr(0, 80));
        CHECK_FALSE(parse_quota_refusal(text));
    }
    // Every cut of a real message is read without harm, as a refusal or as none.
    const std::string whole = std::string("Error creating: ") + k_cpu_refusal;
    for (size_t cut = 0; cut <= whole.size(); ++cut) {
        auto refusal = parse_quota_refusal(whole.substr(0, cut));
        if (refusal) {
            CHECK(refusal->quota == "team-quota");
            CHECK(refusal->amounts.size() <= 1);
        }
    }
    // Hostile lists: too many resources, or odd characters in them, leave the numbers out.
    std::string many = "pods \"p\" is forbidden: exceeded quota: q, requested: ";
    for (int i = 0; i < 100; ++i) {
        many += (i ? "," : "") + std::string("r") + std::to_string(i) + "=1";
    }
    auto refusal = parse_quota_refusal(many + ", used: pods=1, limited: pods=1");
    REQUIRE(refusal);
    CHECK(refusal->amounts.empty());
    refusal = parse_quota_refusal(
        "pods \"p\" is forbidden: exceeded quota: q, requested: pods=1\x1b[31m, used: pods=1, "
        "limited: pods=1");
    REQUIRE(refusal);
    CHECK(refusal->amounts.empty());
}

TEST_CASE("diagnose names the quota that refused pods and counts them", "[diagnose][quota]") {
    JobEvidence job =
        job_missing_two({{"mnist", "SuccessfulCreatePod", "Created pod: mnist-worker-0", "", false},
                         refused("mnist", "FailedCreatePod", k_cpu_refusal)});
    Diagnosis d = diagnose_job(job);
    CHECK(d.verdict == "pending");
    CHECK(d.cause == Cause::Quota);
    CHECK(d.why ==
          "quota team-quota refused 2 of 4 pods: requests.cpu asked 400m, used 900m of 1 "
          "(2 running, 2 not created)");
    CHECK(d.hint.find("kftrain doctor -f") != std::string::npos);
    REQUIRE(d.quota);
    CHECK(d.quota->running == 2);
    REQUIRE(d.evidence.size() == 1);
    CHECK(d.evidence[0].text.rfind("mnist FailedCreatePod: Error creating: pods \"p5\"", 0) == 0);

    SECTION("a TrainJob's JobSet Job, refused for limits") {
        job.kind = "TrainJob";
        job.events = {refused("mnist-node-0", "FailedCreate",
                              "pods \"mnist-node-0-2-abcde\" is forbidden: failed quota: "
                              "team-quota: must specify limits.cpu,limits.memory")};
        d = diagnose_job(job);
        CHECK(d.cause == Cause::Quota);
        CHECK(d.why ==
              "quota team-quota refused 2 of 4 pods: every container must specify limits.cpu, "
              "limits.memory (2 running, 2 not created)");
        CHECK(d.hint.rfind("the quota needs every container to set limits.cpu, limits.memory", 0) ==
              0);
    }
    SECTION("a job the operator has written no status for yet, or one already Running") {
        // The operator writes the status only when a round creates every pod it tries.
        for (const char* phase : {"Unknown", "Running"}) {
            job.phase = phase;
            CHECK(diagnose_job(job).cause == Cause::Quota);
        }
    }
    SECTION("the number of pods wanted unknown: only a job with none is missing pods") {
        job.replicas_wanted = 0;
        CHECK(diagnose_job(job).cause != Cause::Quota);
        job.replicas.clear();
        d = diagnose_job(job);
        CHECK(d.cause == Cause::Quota);
        CHECK(d.why ==
              "quota team-quota refused the job's pods: requests.cpu asked 400m, used "
              "900m of 1");
    }
    SECTION("every pod created since: the old refusal is no cause") {
        job.replicas.push_back(pod("worker-1", "Running"));
        job.replicas.push_back(pod("worker-2", "Running"));
        CHECK(diagnose_job(job).cause == Cause::None);
    }
    SECTION("a refusal of another job, or a Normal event, is not this job's") {
        job.events = {refused("other", "FailedCreatePod", k_cpu_refusal)};
        CHECK(diagnose_job(job).cause != Cause::Quota);
        job.events = {refused("mnist-v2", "FailedCreate", k_cpu_refusal)};
        CHECK(diagnose_job(job).cause != Cause::Quota);
        job.events = {refused("mnist", "FailedCreatePod", k_cpu_refusal)};
        job.events[0].warning = false;
        CHECK(diagnose_job(job).cause != Cause::Quota);
    }
    SECTION("a failed job is explained by its failure") {
        job.phase = "Failed";
        job.reason = "PyTorchJobFailed";
        CHECK(diagnose_job(job).cause != Cause::Quota);
    }
}

}  // namespace kftrain::diagnose
