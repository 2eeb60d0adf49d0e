// A job of kftrain-trainer's image on real pods, for each kind: submit, status, wait, logs,
// list, describe and delete against a real API server, scheduler, kubelet and garbage
// collector, with the operator stand-ins (test/e2e/operators/) making the pods.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"

using kftrain::e2e::Namespace;
using kftrain::e2e::poll_until;
using nlohmann::json;

namespace {

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a 2-replica job of the trainer image trains to Succeeded through real DNS rendezvous",
          "[e2e]") {
    const std::string kind = GENERATE("PyTorchJob", "TrainJob");
    const bool v1 = kind == "PyTorchJob";
    Namespace ns("train");
    ns.submit(kftrain::e2e::trainer_job("ddp", kind, 2));

    auto waited =
        ns.kftrain({"wait", "ddp", "--for", "succeeded", "--timeout", "5m", "--interval", "1s"});
    INFO(waited.out << waited.err << kftrain::e2e::pods_of(ns));
    REQUIRE(waited.code == 0);

    // status: the job and each replica as the pods ended.
    auto status = ns.kftrain({"status", "ddp", "-o", "json"});
    REQUIRE(status.code == 0);
    json doc = json::parse(status.out);
    CHECK(doc["kind"] == kind);
    CHECK(doc["state"] == "Succeeded");
    REQUIRE(doc["replicas"].size() == 2);
    for (const auto& replica : doc["replicas"]) {
        CHECK(replica["state"] == "Succeeded");
        CHECK(replica["exitCode"] == 0);
        CHECK_FALSE(replica["node"].get<std::string>().empty());
    }
    CHECK(doc["replicas"][0]["name"] == (v1 ? "master-0" : "node-0"));
    CHECK(doc["replicas"][1]["name"] == (v1 ? "worker-0" : "node-1"));

    // logs: every replica's lines, each marked with its replica; both ranks saw a world of 2.
    auto logs = ns.kftrain({"logs", "ddp", "--raw"});
    INFO(logs.out << logs.err);
    REQUIRE(logs.code == 0);
    for (const char* replica : v1 ? std::vector<const char*>{"\nmaster-0 ", "\nworker-0 "}
                                  : std::vector<const char*>{"\nnode-0 ", "\nnode-1 "}) {
        CHECK(has("\n" + logs.out, replica));
    }
    CHECK(has(logs.out, "\"world_size\":2"));
    CHECK(has(logs.out, "\"event\":\"finish\""));

    auto list = ns.kftrain({"list"});
    INFO(list.out);
    CHECK(has(list.out, "ddp"));
    CHECK(has(list.out, "Succeeded"));

    // describe: the real events of the scheduler and the kubelet.
    auto described = ns.kftrain({"describe", "ddp"});
    INFO(described.out << described.err);
    REQUIRE(described.code == 0);
    CHECK(has(described.out, "Scheduled"));
    CHECK(has(described.out, "Started"));

    // delete: the job goes, and the garbage collector takes its pods and services.
    auto deleted = ns.kftrain({"delete", "ddp", "--wait"});
    INFO(deleted.out << deleted.err);
    REQUIRE(deleted.code == 0);
    poll_until("the garbage collector to delete the job's pods and services",
               std::chrono::seconds(90), [&](std::string& last) {
                   last = ns.kubectl({"get", "pods,services", "-o", "name"}).out;
                   return last.empty();
               });
    // Its record answers for it now (docs/history.md), and says the job is gone.
    auto gone = ns.kftrain({"status", "ddp"});
    CHECK(gone.code == 0);
    CHECK(gone.err.find("job ddp no longer exists on the cluster") != std::string::npos);
    CHECK(ns.kftrain({"status", "ddp", "--from-history"}).code == 0);
}

TEST_CASE("logs -f follows every replica of a running job until it ends", "[e2e]") {
    Namespace ns("follow");
    ns.submit(kftrain::e2e::trainer_job("follow", "PyTorchJob", 2,
                                        "args: [--dataset, synthetic, --model, mlp, "
                                        "--samples, '2048', --epochs, '2', --threads, '1', "
                                        "--log-every, '8', --log-format, json]\n"));
    poll_until("the job to run", std::chrono::seconds(120), [&](std::string& last) {
        last = ns.kftrain({"status", "follow"}).out;
        return has(last, "Running") || has(last, "Succeeded");
    });
    auto followed = ns.kftrain({"logs", "follow", "-f", "--raw", "--poll-interval", "1s"});
    INFO(followed.out << followed.err);
    CHECK(followed.code == 0);
    CHECK(has(followed.out, "master-0 | "));
    CHECK(has(followed.out, "worker-0 | "));
    CHECK(has(followed.out, "\"event\":\"finish\""));
}
