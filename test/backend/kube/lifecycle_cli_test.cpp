#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/cli_runner.h"
#include "support/fake_cluster.h"
#include "support/paths.h"

using kftrain::test::contains;
using kftrain::test::FakeCluster;

namespace {

using Argv = std::vector<std::string>;

// The patch calls kftrain made, in order.
std::vector<Argv> patches(const FakeCluster& cluster) {
    std::vector<Argv> found;
    for (const auto& call : cluster.calls()) {
        if (!call.empty() && call[0] == "patch") {
            found.push_back(call);
        }
    }
    return found;
}

// How many times kftrain read the job (each look at it reads it once).
int job_reads(const FakeCluster& cluster) {
    int reads = 0;
    for (const auto& call : cluster.calls()) {
        reads +=
            call.size() > 1 && call[0] == "get" && call[1] != "pods" && call[1] != "events" ? 1 : 0;
    }
    return reads;
}

}  // namespace

TEST_CASE("suspend and resume patch each kind with kubectl and wait for its pods",
          "[lifecycle][cluster][cli]") {
    struct Case {
        const char* scenario;
        const char* verb;
        const char* job;
        Argv patch;
        const char* printed;
    };
    const Case cases[] = {
        {"suspend-pytorchjob",
         "suspend",
         "mnist-ddp",
         {"patch", "pytorchjobs.kubeflow.org", "--type", "merge", "-p",
          R"({"spec":{"runPolicy":{"suspend":true}}})", "-n", "ml-training", "--", "mnist-ddp"},
         "pytorchjob/mnist-ddp suspended\n"},
        {"resume-pytorchjob",
         "resume",
         "mnist-ddp",
         {"patch", "pytorchjobs.kubeflow.org", "--type", "merge", "-p",
          R"({"spec":{"runPolicy":{"suspend":false}}})", "-n", "ml-training", "--", "mnist-ddp"},
         "pytorchjob/mnist-ddp resumed\n"},
        {"suspend-trainjob",
         "suspend",
         "mnist-trainjob",
         {"patch", "trainjobs.trainer.kubeflow.org", "--type", "merge", "-p",
          R"({"spec":{"suspend":true}})", "-n", "ml-training", "--", "mnist-trainjob"},
         "trainjob/mnist-trainjob suspended\n"},
        {"resume-trainjob",
         "resume",
         "mnist-trainjob",
         {"patch", "trainjobs.trainer.kubeflow.org", "--type", "merge", "-p",
          R"({"spec":{"suspend":false}})", "-n", "ml-training", "--", "mnist-trainjob"},
         "trainjob/mnist-trainjob resumed\n"},
    };
    for (const auto& c : cases) {
        SECTION(c.scenario) {
            FakeCluster cluster(c.scenario);
            auto run = cluster.run({c.verb, c.job, "-n", "ml-training", "--interval", "10ms"});
            CHECK(run.err == "");
            CHECK(run.code == 0);
            CHECK(run.out == c.printed);
            CHECK(patches(cluster) == std::vector<Argv>{c.patch});
            // The scenario's pods leave (come back) only at its third look: kftrain waited.
            CHECK(job_reads(cluster) == 3);
        }
    }
}

TEST_CASE("status says since when a job is suspended, and a resumed job is not Suspended",
          "[lifecycle][cluster][cli]") {
    FakeCluster suspended("suspend-pytorchjob");
    REQUIRE(
        suspended.run({"suspend", "mnist-ddp", "-n", "ml-training", "--interval", "10ms"}).code ==
        0);
    auto status = suspended.run({"status", "mnist-ddp", "-n", "ml-training"});
    CHECK(status.code == 0);
    CHECK(contains(status.out,
                   "State:      Suspended (PyTorchJobSuspended): PyTorchJob mnist-ddp is "
                   "suspended.\n"));
    CHECK(contains(status.out, "Suspended:  2024-05-01T10:03:00Z ("));
    auto json = suspended.run({"status", "mnist-ddp", "-n", "ml-training", "-o", "json"});
    CHECK(contains(json.out, R"("suspendedSince": "2024-05-01T10:03:00Z")"));
    // wait --for suspended holds at once.
    auto waited = suspended.run({"wait", "mnist-ddp", "-n", "ml-training", "--for", "suspended"});
    CHECK(waited.code == 0);

    SECTION(
        "PyTorchJob: the last condition is Suspended False, kubectl's State column says "
        "Suspended") {
        FakeCluster resumed("resume-pytorchjob");
        REQUIRE(
            resumed.run({"resume", "mnist-ddp", "-n", "ml-training", "--interval", "10ms"}).code ==
            0);
        auto after = resumed.run({"status", "mnist-ddp", "-n", "ml-training"});
        CHECK(after.code == 0);
        CHECK_FALSE(contains(after.out, "Suspended"));
        CHECK(contains(after.out, "master-0  Running"));
    }
    SECTION("TrainJob: its Suspended condition is False after a resume") {
        FakeCluster resumed("resume-trainjob");
        REQUIRE(resumed.run({"resume", "mnist-trainjob", "-n", "ml-training", "--interval", "10ms"})
                    .code == 0);
        auto after = resumed.run({"status", "mnist-trainjob", "-n", "ml-training"});
        CHECK(after.code == 0);
        CHECK(contains(after.out, "State:      Running"));
        CHECK_FALSE(contains(after.out, "Suspended"));
    }
}

TEST_CASE("suspend --no-wait returns once the job is patched", "[lifecycle][cluster][cli]") {
    FakeCluster cluster("suspend-pytorchjob");
    auto run = cluster.run({"suspend", "mnist-ddp", "-n", "ml-training", "--no-wait"});
    CHECK(run.code == 0);
    CHECK(run.out == "pytorchjob/mnist-ddp suspend requested\n");
    CHECK(patches(cluster).size() == 1);
    // Once for its state (a finished job is refused), once for its queue label at the patch.
    CHECK(job_reads(cluster) == 2);
}

TEST_CASE("suspend and resume refuse a finished or missing job and patch nothing",
          "[lifecycle][cluster][cli]") {
    struct Case {
        const char* scenario;
        const char* verb;
        const char* job;
        int code;
        const char* err;
    };
    const Case cases[] = {
        {"succeeded", "suspend", "mnist-ddp", 2,
         "kftrain: error: cannot suspend pytorchjob/mnist-ddp: it has already Succeeded and "
         "will not run again\n"},
        {"failed", "resume", "mnist-ddp", 2,
         "kftrain: error: cannot resume pytorchjob/mnist-ddp: it has already Failed and will "
         "not run again\n"},
        {"trainjob-complete", "suspend", "mnist-trainjob", 2,
         "kftrain: error: cannot suspend trainjob/mnist-trainjob: it has already Succeeded and "
         "will not run again\n"},
        {"not-found", "suspend", "mnist-ddp", 3,
         "kftrain: error: no PyTorchJob, TrainJob, TFJob, XGBoostJob or JAXJob named mnist-ddp in "
         "namespace ml-training "
         "(hint: check the name and the namespace (-n))\n"},
        {"not-found", "resume", "mnist-ddp", 3,
         "kftrain: error: no PyTorchJob, TrainJob, TFJob, XGBoostJob or JAXJob named mnist-ddp in "
         "namespace ml-training "
         "(hint: check the name and the namespace (-n))\n"},
    };
    for (const auto& c : cases) {
        SECTION(std::string(c.scenario) + " " + c.verb) {
            FakeCluster cluster(c.scenario);
            auto run = cluster.run({c.verb, c.job, "-n", "ml-training"});
            CHECK(run.code == c.code);
            CHECK(run.out == "");
            CHECK(run.err == c.err);
            CHECK(patches(cluster).empty());
        }
    }
}

TEST_CASE("suspend gives up at --timeout with exit 5, the job staying suspended",
          "[lifecycle][cluster][cli]") {
    FakeCluster cluster("running");  // the operator never stops its pods
    auto run = cluster.run(
        {"suspend", "mnist-ddp", "-n", "ml-training", "--timeout", "2s", "--interval", "100ms"});
    CHECK(run.code == 5);
    CHECK(run.err ==
          "kftrain: error: timed out after 2s waiting for the pods of pytorchjob/mnist-ddp to "
          "stop (it is Running); the job stays suspended\n");
    CHECK(patches(cluster).size() == 1);
}

TEST_CASE("suspend and resume reject bad flags before any kubectl call",
          "[lifecycle][cluster][cli]") {
    struct Case {
        Argv args;
        const char* err;
    };
    const Case cases[] = {
        {{"suspend", "mnist-ddp", "--timeout", "soon"},
         "kftrain: error: --timeout: not a duration such as 90s, 1h30m or 500ms (got soon)\n"},
        {{"resume", "mnist-ddp", "--interval", "0s"},
         "kftrain: error: --interval: must be a duration longer than 0 (got 0s)\n"},
        {{"suspend", "Bad_Name"}, "kftrain: error: job name"},
    };
    for (const auto& c : cases) {
        FakeCluster cluster("running");
        auto run = cluster.run(c.args);
        CAPTURE(c.args);
        CHECK(run.code == 2);
        CHECK(contains(run.err, c.err));
        CHECK(cluster.calls().empty());
    }
}

TEST_CASE("scale patches an elastic PyTorchJob's Worker replicas within its bounds",
          "[lifecycle][cluster][cli]") {
    FakeCluster cluster("scale-elastic");
    auto run = cluster.run({"scale", "mnist-ddp", "--replicas", "4", "-n", "ml-training"});
    CHECK(run.err == "");
    CHECK(run.code == 0);
    CHECK(run.out == "pytorchjob/mnist-ddp scaled to 4 Worker replicas\n");
    CHECK(patches(cluster) ==
          std::vector<Argv>{{"patch", "pytorchjobs.kubeflow.org", "--type", "merge", "-p",
                             R"({"spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":4}}}})", "-n",
                             "ml-training", "--", "mnist-ddp"}});
}

TEST_CASE("scale refuses what cannot scale with exit 2 and patches nothing",
          "[lifecycle][cluster][cli]") {
    struct Case {
        const char* scenario;
        const char* job;
        const char* replicas;
        int code;
        const char* err;
    };
    const Case cases[] = {
        {"scale-elastic", "mnist-ddp", "7", 2,
         "kftrain: error: --replicas: must be within mnist-ddp's elasticPolicy "
         "minReplicas..maxReplicas (2..6) (got 7)\n"},
        {"scale-elastic", "mnist-ddp", "1", 2,
         "kftrain: error: --replicas: must be within mnist-ddp's elasticPolicy "
         "minReplicas..maxReplicas (2..6) (got 1)\n"},
        {"running", "mnist-ddp", "4", 2,
         "kftrain: error: cannot scale pytorchjob/mnist-ddp: it is not elastic (its spec has "
         "no elasticPolicy); set elasticPolicy.minReplicas and maxReplicas in the job file and "
         "submit it again\n"},
        {"trainjob-running", "mnist-trainjob", "4", 2,
         "kftrain: error: cannot scale trainjob/mnist-trainjob: scaling a TrainJob is not "
         "supported by Kubeflow Trainer yet (only elastic PyTorchJobs scale)\n"},
        {"scale-elastic", "mnist-ddp", "0", 2,
         "kftrain: error: --replicas: must be >= 1 (got 0)\n"},
        {"not-found", "mnist-ddp", "4", 3,
         "kftrain: error: no PyTorchJob, TrainJob, TFJob, XGBoostJob or JAXJob named mnist-ddp in "
         "namespace ml-training "
         "(hint: check the name and the namespace (-n))\n"},
    };
    for (const auto& c : cases) {
        SECTION(std::string(c.scenario) + " " + c.replicas) {
            FakeCluster cluster(c.scenario);
            auto run = cluster.run({"scale", c.job, "--replicas", c.replicas, "-n", "ml-training"});
            CHECK(run.code == c.code);
            CHECK(run.out == "");
            CHECK(run.err == c.err);
            CHECK(patches(cluster).empty());
        }
    }
}

TEST_CASE("completion offers suspend, resume and scale and the cluster's job names to them",
          "[lifecycle][completion]") {
    for (const char* verb : {"suspend", "resume", "scale"}) {
        CAPTURE(verb);
        auto verbs = kftrain::test::run_kftrain({"__complete", "kftrain", verb});
        CHECK(contains(verbs.out, std::string(verb) + "\t"));
        FakeCluster cluster("list");
        auto names =
            kftrain::test::run_kftrain({"__complete", "kftrain", verb, "mnist"}, cluster.env());
        CHECK(names.err == "");
        CHECK(contains(names.out, "mnist-ddp\t"));
    }
    auto flags = kftrain::test::run_kftrain({"__complete", "kftrain", "scale", "x", "--rep"});
    CHECK(contains(flags.out, "--replicas"));
}

TEST_CASE("local-only flags are refused on a cluster by its backend, before any kubectl call",
          "[lifecycle][cluster][cli]") {
    const std::string job = std::string(kftrain::test::source_dir()) + "/examples/mnist-ddp.yaml";
    struct Case {
        Argv args;
        const char* err;
    };
    const Case cases[] = {
        {{"submit", "-f", job, "--env-from-shell", "HF_TOKEN"},
         "kftrain: error: --env-from-shell: only for local runs; on a cluster a replica takes a "
         "Secret through secretKeyRef (got HF_TOKEN)\n"},
        {{"delete", "mnist-ddp", "--force"},
         "kftrain: error: --force: only for local jobs (got --force for mnist-ddp on the "
         "cluster; kubectl delete --force skips the grace period instead)\n"},
    };
    for (const auto& c : cases) {
        FakeCluster cluster("running");
        auto run = cluster.run(c.args);
        CAPTURE(c.args);
        CHECK(run.code == 2);
        CHECK(run.err == c.err);
        CHECK(cluster.calls().empty());
    }
}
