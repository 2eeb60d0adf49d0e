// kftrain diagnose on the cluster's own causes, through the fake kubectl playing pods, events
// and logs as kubectl returns them.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/fake_cluster.h"

namespace kftrain::test {

TEST_CASE("diagnose names the cluster's causes from pods, events, logs and Kueue",
          "[diagnose][cluster][cli]") {
    struct Case {
        const char* scenario;
        const char* cause;
        const char* replica;
        const char* why;
    };
    const Case cases[] = {
        {"failed", "out-of-memory", "master-0",
         "master-0 failed first (killed by SIGKILL): out of memory: OOMKilled"},
        {"pending-imagepull", "image-pull", "master-0",
         "master-0 cannot start: the image cannot be pulled: Back-off pulling image "
         "\"registry.example.com/ml/kftrain-trainer:0.1.0\""},
        {"pending-unschedulable", "unschedulable", "master-0",
         "master-0 cannot start: no node can run the pod: 0/1 nodes are available: 1 "
         "Insufficient cpu."},
        {"evicted", "evicted", "worker-0",
         "worker-0 failed first (killed by SIGKILL): the pod was evicted: The node was low on "
         "resource: memory."},
        {"crashloop", "out-of-memory", "worker-1",
         "crash loop: each of worker-1's 6 attempts failed, the last with RuntimeError: CUDA "
         "error: out of memory"},
        {"kueue-pending", "queue-waiting", "",
         "waiting in its Kueue queue: couldn't assign flavors to pod set worker: insufficient "
         "unused quota for nvidia.com/gpu in flavor a100, 4 more needed"},
        {"kueue-evicted", "queue-evicted", "", "evicted by Kueue: Preempted to accommodate"},
    };
    for (const Case& c : cases) {
        INFO(c.scenario);
        FakeCluster cluster(c.scenario);
        CliRun run = cluster.run({"diagnose", "mnist-ddp", "-n", "ml-training", "-o", "json"});
        INFO(run.err);
        REQUIRE(run.code == 0);
        auto d = nlohmann::json::parse(run.out);
        CHECK(d["cause"] == c.cause);
        CHECK(d["replica"] == c.replica);
        CHECK(d["why"].get<std::string>().rfind(c.why, 0) == 0);
        CHECK_FALSE(d["hint"].get<std::string>().empty());
    }
}

TEST_CASE("diagnose puts the evicted worker first and the peers it left behind after it",
          "[diagnose][cluster][cli]") {
    FakeCluster cluster("evicted");
    CliRun run = cluster.run({"diagnose", "mnist-ddp", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "Job:        pytorchjob/mnist-ddp (failed)\n"));
    CHECK(contains(run.out, "; then worker-1, master-0 lost their peer\n"));
    CHECK(contains(run.out,
                   "worker-0  Failed  2024-05-01T10:04:00Z  137 (SIGKILL)  0         "
                   "evicted (first)"));
    CHECK(contains(run.out, "peer-gone (a consequence)"));
    CHECK(run.out.find("worker-0  Failed") < run.out.find("worker-1  Failed"));
    CHECK(run.out.find("worker-1  Failed") < run.out.find("master-0  Failed"));
    // status of a failed job says why in one line; describe too.
    CHECK(contains(cluster.run({"status", "mnist-ddp", "-n", "ml-training"}).out,
                   "Why:        worker-0 failed first (killed by SIGKILL): the pod was evicted"));
    CHECK(contains(cluster.run({"describe", "mnist-ddp", "-n", "ml-training"}).out,
                   "Why:        worker-0 failed first"));
}

TEST_CASE("diagnose of a TrainJob past its active deadline says so", "[diagnose][cluster][cli]") {
    FakeCluster cluster("trainjob-deadline");
    CliRun run = cluster.run({"diagnose", "mnist-trainjob", "-n", "ml-training", "-o", "json"});
    REQUIRE(run.code == 0);
    auto d = nlohmann::json::parse(run.out);
    CHECK(d["kind"] == "TrainJob");
    CHECK(d["cause"] == "deadline-exceeded");
    CHECK(d["why"] == "the active deadline ran out: TrainJob exceeded its active deadline");
}

TEST_CASE("diagnose refuses a --stuck-after that is no duration of 1s to 24h, before kubectl",
          "[diagnose][cluster][cli]") {
    FakeCluster cluster("crashloop");
    const std::string not_one = "--stuck-after: not a duration such as 90s, 1h30m or 500ms (got ";
    const std::string outside = "--stuck-after: must be a duration from 1s to 24h (got ";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", not_one + "\"\")"},
        {"0", outside + "0)"},
        {"soon", not_one + "soon)"},
        {"nans", not_one + "nans)"},
        {"infs", not_one + "infs)"},
        {"0x10s", not_one + "0x10s)"},
        {"1e-300s", not_one + "1e-300s)"},
        {"500ms", outside + "500ms)"},
        {"25h", outside + "25h)"},
        {"99999999999d", not_one + "99999999999d; kubectl takes no d: write a day as 24h)"},
    };
    for (const auto& [bad, message] : cases) {
        INFO(bad);
        CliRun run = cluster.run({"diagnose", "mnist-ddp", "--stuck-after", bad});
        CHECK(run.code == 2);
        CHECK(run.err == "kftrain: error: " + message + "\n");
    }
    CHECK(cluster.calls().empty());
}

TEST_CASE("diagnose and status say what they could not read when logs never come",
          "[diagnose][cluster][cli]") {
    FakeCluster cluster("crashloop-logs-hang");
    CliRun run = cluster.run(
        {"diagnose", "mnist-ddp", "-n", "ml-training", "--request-timeout", "1s", "-o", "json"});
    INFO(run.err);
    REQUIRE(run.code == 0);
    auto d = nlohmann::json::parse(run.out);
    CHECK(d["replica"] == "worker-1");  // from its pod: restarting, in CrashLoopBackOff
    REQUIRE(d["notes"].size() > 0);
    CHECK(contains(d["notes"][0].get<std::string>(), "did not finish within 6s"));
    // status does not take a log it could not read for one without progress.
    CliRun status = cluster.run(
        {"status", "mnist-ddp", "-n", "ml-training", "--request-timeout", "1s", "-o", "json"});
    auto s = nlohmann::json::parse(status.out);
    CHECK(s["progress"].is_null());
    CHECK(contains(s["progressNotRead"].get<std::string>(), "did not finish within 6s"));
}

}  // namespace kftrain::test

TEST_CASE("diagnose and status name the quota that refused a job's pods",
          "[diagnose][quota][cluster][cli]") {
    struct Case {
        const char* scenario;
        const char* job;
        const char* kind;
        const char* why;
        const char* first_resource;
    };
    const Case cases[] = {
        {"quota-refused", "mnist-ddp", "PyTorchJob",
         "quota team-quota refused 1 of 3 pods: requests.cpu asked 2, used 4 of 5 (2 running, 1 "
         "not created)",
         "requests.cpu"},
        {"trainjob-quota-refused", "mnist-trainjob", "TrainJob",
         "quota team-quota refused 1 of 2 pods: limits.memory asked 4Gi, used 4Gi of 6Gi; "
         "requests.cpu asked 2, used 2 of 3 (1 running, 1 not created)",
         "limits.memory"},
    };
    for (const Case& c : cases) {
        INFO(c.scenario);
        FakeCluster cluster(c.scenario);
        CliRun run = cluster.run({"diagnose", c.job, "-n", "ml-training", "-o", "json"});
        INFO(run.err);
        REQUIRE(run.code == 0);
        auto d = nlohmann::json::parse(run.out);
        CHECK(d["kind"] == c.kind);
        CHECK(d["verdict"] == "pending");
        CHECK(d["cause"] == "quota-exceeded");
        CHECK(d["why"] == c.why);
        CHECK(d["hint"].get<std::string>().find("kftrain doctor -f") != std::string::npos);
        CHECK(d["quota"]["name"] == "team-quota");
        CHECK(d["quota"]["podsNotCreated"] == 1);
        CHECK(d["quota"]["resources"][0]["resource"] == c.first_resource);
        // The job still waits: status says why on its Why line, describe too.
        CliRun status = cluster.run({"status", c.job, "-n", "ml-training"});
        INFO(status.out);
        CHECK(contains(status.out, std::string("Why:        ") + c.why + "\n"));
        CHECK(contains(cluster.run({"describe", c.job, "-n", "ml-training"}).out,
                       std::string("Why:        ") + c.why));
        CHECK(contains(cluster.run({"diagnose", c.job, "-n", "ml-training"}).out,
                       "Cause:      quota-exceeded: a ResourceQuota refused pods\n"));
    }
}

TEST_CASE("diagnose reads the job and its pods once, its restarted replicas' logs included",
          "[diagnose][cluster][cli]") {
    for (const char* scenario : {"big-one-fails", "crashloop"}) {
        INFO(scenario);
        FakeCluster cluster(scenario);
        const std::string job = std::string(scenario) == "crashloop" ? "mnist-ddp" : "bigrun";
        CliRun run = cluster.run({"diagnose", job, "-n", "ml-training"});
        INFO(run.err);
        REQUIRE(run.code == 0);
        int job_reads = 0;
        int pod_reads = 0;
        for (const auto& call : cluster.calls()) {
            if (call.size() > 1 && call[0] == "get") {
                job_reads += call[1].find("pytorchjobs") != std::string::npos ? 1 : 0;
                pod_reads += call[1] == "pods" ? 1 : 0;
            }
        }
        CHECK(job_reads == 1);
        CHECK(pod_reads == 1);
    }
}
