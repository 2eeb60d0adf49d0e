// submit and run against a namespace's ResourceQuotas, as a user meets them: a job that can
// never fit is refused before anything is applied, --force submits it with a warning, a job
// that fits only when others' pods end is a warning, and a quota that cannot be read is said.
// The quota and LimitRange are a real API server's (test/data/kube/quota-limitrange-v120.json);
// the real refusal of pods is in test/e2e/quota_e2e.cpp.
#include <catch2/catch.hpp>

#include "support/fake_cluster.h"
#include "support/files.h"

using kftrain::test::FakeCluster;

namespace {

std::string job_file(const std::string& text) {
    const std::string path = kftrain::test::make_temp_dir() + "/job.yaml";
    kftrain::test::write_file(path, text);
    return path;
}

bool applied_anything(const FakeCluster& cluster) {
    return !cluster.applied().empty();
}

}  // namespace

TEST_CASE("submit refuses a job a ResourceQuota can never admit and applies nothing",
          "[cli][submit][quota]") {
    FakeCluster cluster("quota-team");
    const auto file = job_file("name: big\nreplicas: 4\nresources: {cpu: 100m, memory: 64Mi}\n");
    auto run = cluster.run({"submit", "-f", file, "-n", "team-a"});
    CHECK(run.code == 2);
    CHECK(run.out.empty());
    CHECK(run.err ==
          "kftrain: error: quota team-quota: pods: the job asks 4, 1 of 3 used: the job can never "
          "run in namespace team-a (hint: ask for less: resources, replicas; or ask the "
          "namespace's admin; kftrain doctor -f JOB -n team-a says more; --force submits it "
          "anyway)\n");
    CHECK_FALSE(applied_anything(cluster));
}

TEST_CASE("submit --force submits what the quota refuses, with a warning", "[cli][submit][quota]") {
    FakeCluster cluster("quota-team");
    const auto file = job_file("name: big\nreplicas: 4\nresources: {cpu: 100m, memory: 64Mi}\n");
    auto run = cluster.run({"submit", "-f", file, "-n", "team-a", "--force"});
    CHECK(run.code == 0);
    CHECK(run.out == "pytorchjob/big submitted\n");
    CHECK(run.err ==
          "kftrain: warning: quota team-quota: pods: the job asks 4, 1 of 3 used: submitted "
          "anyway (--force)\n");
    CHECK(applied_anything(cluster));
}

TEST_CASE("a job that fits the quota only once others' pods end is submitted with a warning",
          "[cli][submit][quota]") {
    FakeCluster cluster("quota-team");
    const auto file = job_file("name: wide\nreplicas: 2\nresources: {cpu: 300m, memory: 64Mi}\n");
    auto run = cluster.run({"submit", "-f", file, "-n", "team-a"});
    CHECK(run.code == 0);
    CHECK(run.err ==
          "kftrain: warning: quota team-quota fits the job only when others' pods end "
          "(requests.cpu: the job asks 600m, 500m of 1 used): until then some of its replicas "
          "are refused and the others wait for them (kubectl describe resourcequota team-quota "
          "-n team-a)\n");
    CHECK(applied_anything(cluster));
    // The same job, small enough, says nothing.
    const auto small = job_file("name: small\nreplicas: 2\nresources: {cpu: 200m, memory: 64Mi}\n");
    auto quiet = cluster.run({"submit", "-f", small, "-n", "team-a"});
    CHECK(quiet.code == 0);
    CHECK(quiet.err.empty());
}

TEST_CASE("a quota the user may not read is a warning, and the job is submitted",
          "[cli][submit][quota]") {
    FakeCluster cluster("quota-forbidden");
    const auto file = job_file("name: small\nreplicas: 2\n");
    auto run = cluster.run({"submit", "-f", file, "-n", "team-a"});
    CHECK(run.code == 0);
    CHECK(run.err ==
          "kftrain: warning: the ResourceQuotas of namespace team-a were not checked: Error from "
          "server (Forbidden): resourcequotas is forbidden: User \"dev\" cannot list resource "
          "\"resourcequotas\" in API group \"\" in the namespace \"team-a\"\n");
}

TEST_CASE("run to a cluster is held to the quota as submit is", "[cli][run][quota]") {
    FakeCluster cluster("quota-team");
    auto run = cluster.run({"run", "--replicas", "4", "--image", "python:3.11", "--no-code", "-n",
                            "team-a", "--", "python3", "-c", "print(1)"});
    CHECK(run.code == 2);
    CHECK(run.err.find("kftrain: error: quota team-quota: pods: the job asks 4, 1 of 3 used") == 0);
    CHECK_FALSE(applied_anything(cluster));
}
