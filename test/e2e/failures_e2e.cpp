// How kftrain reads the ways real pods fail: each state made for real by the kubelet or the
// scheduler, read back by status (and logs --previous after a real restart).

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"

using kftrain::e2e::Namespace;
using kftrain::e2e::poll_until;
using nlohmann::json;

namespace {

// A one-replica PyTorchJob of the busybox image running this shell script.
std::string shell_job(const std::string& name, const std::string& script,
                      const std::string& extra = "",
                      const std::string& resources = "{cpu: 50m, memory: 64Mi}") {
    return fmt::format(R"(name: {}
image: {}
replicas: 1
command: [sh, -c]
args: ['{}']
resources: {}
{})",
                       name, kftrain::e2e::busybox_image(), script, resources, extra);
}

json status_of(const Namespace& ns, const std::string& job) {
    auto run = ns.kftrain({"status", job, "-o", "json"});
    if (run.code != 0) {
        return json{{"error", run.err}};
    }
    return json::parse(run.out);
}

// Poll the job's status until its first replica matches, and return that status.
json replica_reaches(const Namespace& ns, const std::string& job, const std::string& what,
                     const std::function<bool(const json& replica)>& matches) {
    json doc;
    poll_until(what, std::chrono::seconds(150), [&](std::string& last) {
        doc = status_of(ns, job);
        last = doc.dump(2);
        return doc.contains("replicas") && !doc["replicas"].empty() && matches(doc["replicas"][0]);
    });
    return doc;
}

}  // namespace

TEST_CASE(
    "a replica that keeps crashing reads as Restarting in CrashLoopBackOff, with its "
    "previous run's logs",
    "[e2e]") {
    Namespace ns("crash");
    ns.submit(shell_job("crash", "echo attempt at $(date +%s%N); exit 3"));
    json doc = replica_reaches(ns, "crash", "CrashLoopBackOff", [](const json& r) {
        return r["reason"] == "CrashLoopBackOff" && r["restarts"].get<int>() >= 1;
    });
    const json& replica = doc["replicas"][0];
    CHECK(replica["state"] == "Restarting");
    CHECK(replica["exitCode"] == 3);
    // The job itself is not over: OnFailure restarts it in place.
    CHECK(doc["state"] != "Failed");

    auto previous = ns.kftrain({"logs", "crash", "--previous"});
    INFO(previous.out << previous.err);
    CHECK(previous.code == 0);
    CHECK(previous.out.find("master-0 | attempt at ") != std::string::npos);
}

TEST_CASE("a replica over its memory limit reads as OOMKilled with exit code 137", "[e2e]") {
    Namespace ns("oom");
    // 64 MiB of a shell variable in a 32 MiB container; restartPolicy Never ends the job.
    ns.submit(shell_job("oom", "x=$(head -c 67108864 /dev/zero | tr \"\\\\0\" x); echo ${#x}",
                        "restartPolicy: Never\n", "{cpu: 50m, memory: 32Mi}"));
    json doc = replica_reaches(ns, "oom", "OOMKilled",
                               [](const json& r) { return r["reason"] == "OOMKilled"; });
    CHECK(doc["replicas"][0]["exitCode"] == 137);
    poll_until("the job to fail", std::chrono::seconds(60), [&](std::string& last) {
        doc = status_of(ns, "oom");
        last = doc.dump(2);
        return doc["state"] == "Failed";
    });
}

TEST_CASE(
    "a replica no node can hold reads as Pending, Unschedulable, with the scheduler's "
    "message",
    "[e2e]") {
    Namespace ns("unsched");
    ns.submit(shell_job("huge", "sleep 1", "", "{cpu: '64', memory: 64Mi}"));
    json doc = replica_reaches(ns, "huge", "Unschedulable",
                               [](const json& r) { return r["reason"] == "Unschedulable"; });
    CHECK(doc["replicas"][0]["state"] == "Pending");
    CHECK(doc["replicas"][0]["message"].get<std::string>().find("Insufficient cpu") !=
          std::string::npos);
    auto described = ns.kftrain({"describe", "huge"});
    CHECK(described.out.find("FailedScheduling") != std::string::npos);
}

TEST_CASE(
    "an image that is not there reads as ImagePullBackOff, and the worker waits in its "
    "init container for the master's name",
    "[e2e]") {
    Namespace ns("pull");
    ns.submit(fmt::format(R"(name: nopull
image: localhost/kftrain-e2e-missing:1
replicas: 2
resources: {{cpu: 50m, memory: 64Mi}}
)"));
    json doc = replica_reaches(ns, "nopull", "ImagePullBackOff", [](const json& r) {
        return r["reason"] == "ImagePullBackOff" || r["reason"] == "ErrImagePull";
    });
    CHECK(doc["replicas"][0]["name"] == "master-0");
    CHECK(doc["replicas"][0]["state"] == "Pending");
    // The master never runs, so its name never resolves: the worker stays in init-pytorch.
    const json& worker = doc["replicas"][1];
    INFO(doc.dump(2));
    CHECK(worker["name"] == "worker-0");
    CHECK(worker["state"] == "Pending");
    CHECK(worker["reason"].get<std::string>().find("init") != std::string::npos);
}
