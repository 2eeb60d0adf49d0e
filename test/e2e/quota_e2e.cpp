// A namespace's ResourceQuota on the real API server: doctor -f and submit judge a job against
// it before anything is created; with --force, the stand-in operator creates the pods one at a
// time as the Training Operator does, the real quota admission refuses the ones past the quota,
// and diagnose names the quota from the operator's FailedCreatePod event.

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"
#include "support/files.h"

using kftrain::e2e::Namespace;
using kftrain::e2e::poll_until;
using nlohmann::json;

namespace {

// A quota of 2 pods and 1 CPU, once the quota controller has given it a status: until then
// the API server's admission refuses every pod ("status unknown for quota").
void quota_of_two_pods(const Namespace& ns) {
    ns.apply(
        "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: team-quota\n"
        "spec:\n  hard:\n    pods: \"2\"\n    requests.cpu: \"1\"\n");
    poll_until("the quota's status", std::chrono::seconds(60), [&](std::string& last) {
        auto hard = ns.kubectl(
            {"get", "resourcequota", "team-quota", "-o", "jsonpath={.status.hard.pods}"});
        last = hard.out + hard.err;
        return hard.code == 0 && hard.out == "2";
    });
}

std::string sleeper_job(const std::string& name, int replicas) {
    return fmt::format(
        "name: {}\nimage: {}\nreplicas: {}\ncommand: [sh, -c, 'sleep 600']\n"
        "resources: {{cpu: 50m, memory: 32Mi}}\n",
        name, kftrain::e2e::busybox_image(), replicas);
}

}  // namespace

TEST_CASE(
    "a job a ResourceQuota can never admit fails doctor and submit, and with --force the real "
    "API server refuses its pods and diagnose names the quota",
    "[e2e]") {
    Namespace ns("quota");
    quota_of_two_pods(ns);
    const std::string file = kftrain::e2e::write_temp("job.yaml", sleeper_job("wide", 3));

    auto doctor = ns.kftrain({"doctor", "-f", file});
    INFO(doctor.out << doctor.err);
    CHECK(doctor.code == 1);
    CHECK(doctor.out.find("never fits: pods: the job asks 3, 0 of 2 used") != std::string::npos);

    auto refused = ns.kftrain({"submit", "-f", file});
    CHECK(refused.code == 2);
    CHECK(refused.err.find("kftrain: error: quota team-quota: pods: the job asks 3, 0 of 2 "
                           "used: the job can never run in namespace " +
                           ns.name()) == 0);
    CHECK(ns.kubectl({"get", "pytorchjobs", "-o", "name"}).out.empty());

    auto forced = ns.kftrain({"submit", "-f", file, "--force"});
    INFO(forced.out << forced.err);
    REQUIRE(forced.code == 0);
    CHECK(forced.err.find("submitted anyway (--force)") != std::string::npos);
    // The operator creates master-0 and worker-0; the API server refuses worker-1.
    std::string diagnosis;
    poll_until("diagnose naming the quota", std::chrono::seconds(120), [&](std::string& last) {
        auto run = ns.kftrain({"diagnose", "wide"});
        last = run.out + run.err + "\n" + kftrain::e2e::pods_of(ns);
        diagnosis = run.out;
        return run.out.find("team-quota") != std::string::npos;
    });
    CHECK(diagnosis.find("exceeded quota") != std::string::npos);
    auto pods = ns.kubectl({"get", "pods", "-o", "name"});
    CHECK(pods.out.find("wide-worker-1") == std::string::npos);
    auto status = ns.kftrain({"status", "wide"});
    CHECK(status.out.find("team-quota") != std::string::npos);
}

TEST_CASE("a job that fits a quota only once others' pods end is submitted with a warning",
          "[e2e]") {
    Namespace ns("quotalater");
    quota_of_two_pods(ns);
    ns.submit(sleeper_job("first", 1));
    // Once the first job's pod counts in the quota's status, a second job of 2 waits for it.
    poll_until("the first job's pod counted", std::chrono::seconds(120), [&](std::string& last) {
        auto used = ns.kubectl(
            {"get", "resourcequota", "team-quota", "-o", "jsonpath={.status.used.pods}"});
        last = used.out + used.err;
        return used.out == "1";
    });
    const std::string file = kftrain::e2e::write_temp("job.yaml", sleeper_job("second", 2));
    auto run = ns.kftrain({"submit", "-f", file});
    INFO(run.out << run.err);
    CHECK(run.code == 0);
    CHECK(run.err.find("kftrain: warning: quota team-quota fits the job only when others' pods "
                       "end (pods: the job asks 2, 1 of 2 used)") == 0);
}
