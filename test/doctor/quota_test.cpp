// Whether a job fits its namespace's ResourceQuotas: the job's pods as quota counts them, the
// LimitRanges' defaults, scopes, and the three verdicts, over what a real API server returned.
#include "doctor/quota.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "manifest/k8s/quantity.h"
#include "support/jobs.h"
#include "support/test_data.h"

namespace kftrain::doctor {
namespace {

using nlohmann::json;

// A real API server's List: ResourceQuota team-quota (requests.cpu 1, limits.memory 1Gi, pods
// 3, requests.nvidia.com/gpu 1, count/configmaps 5; one pod of 500m and 256Mi running) and
// LimitRange defaults (cpu 500m, memory 256Mi).
json recorded() {
    return json::parse(test::read_test_data("kube/quota-limitrange-v120.json"));
}

QuotaVerdict team_quota(const std::string& job_yaml, const json& list = recorded()) {
    const auto verdicts = judge_quotas(list, job_footprint(test::load_job(job_yaml)));
    REQUIRE(verdicts.size() == 1);
    return verdicts.front();
}

json quota_list(const json& spec, const json& used = json::object()) {
    json quota = {{"kind", "ResourceQuota"},
                  {"metadata", {{"name", "q"}}},
                  {"spec", spec},
                  {"status", {{"used", used}}}};
    return {{"kind", "List"}, {"items", json::array({quota})}};
}

}  // namespace

TEST_CASE("a job within the quota beside what others use fits now", "[doctor][quota]") {
    const auto v = team_quota("name: a\nreplicas: 2\nresources: {cpu: 200m, memory: 128Mi}\n");
    CHECK(v.fit == QuotaFit::Fits);
    CHECK(verdict_line(v) ==
          "limits.memory: the job asks 256Mi, "
          "256Mi of 1Gi used; pods: the job asks 2, 1 of 3 used; requests.cpu: the job asks "
          "400m, 500m of 1 used");
}

TEST_CASE("a job that fits the hard limits but not beside others' pods waits for them",
          "[doctor][quota]") {
    const auto v = team_quota("name: a\nreplicas: 2\nresources: {cpu: 300m, memory: 128Mi}\n");
    CHECK(v.fit == QuotaFit::Later);
    CHECK(verdict_line(v) == "requests.cpu: the job asks 600m, 500m of 1 used");
}

TEST_CASE("a job that alone asks more than the quota never fits", "[doctor][quota]") {
    CHECK(
        verdict_line(team_quota("name: a\nreplicas: 4\nresources: {cpu: 100m, memory: 64Mi}\n")) ==
        "pods: the job asks 4, 1 of 3 used");
    const auto gpus = team_quota(
        "name: a\nreplicas: 1\nresources: {cpu: 100m, memory: 64Mi, gpus: 2}\nimage: x\n");
    CHECK(gpus.fit == QuotaFit::Never);
    CHECK(verdict_line(gpus) == "requests.nvidia.com/gpu: the job asks 2, 0 of 1 used");
}

TEST_CASE("the LimitRange's defaults are what a job without resources asks", "[doctor][quota]") {
    // Two pods at the default 500m each: 1 CPU, the whole quota, beside 500m used.
    const auto v = team_quota("name: a\nreplicas: 2\n");
    CHECK(v.fit == QuotaFit::Later);
    CHECK(verdict_line(v) == "requests.cpu: the job asks 1, 500m of 1 used");
}

TEST_CASE("a limit above a LimitRange's max is refused", "[doctor][quota]") {
    json list = recorded();
    list["items"][1]["spec"]["limits"][0]["max"] = {{"cpu", "500m"}};
    const auto refusals = limit_range_refusals(
        list, job_footprint(test::load_job("name: a\nresources: {cpu: 600m}\n")));
    REQUIRE(refusals.size() == 1);
    CHECK(refusals.front() ==
          "LimitRange defaults: a container's cpu limit may be at most 500m, the replicas' is "
          "600m: the API server refuses every pod");
    CHECK(limit_range_refusals(list, job_footprint(test::load_job("name: a\n"))).empty());
}

TEST_CASE("a quota on limits makes a job without limits fail as the API server does",
          "[doctor][quota]") {
    const auto list = quota_list({{"hard", {{"limits.cpu", "4"}, {"requests.memory", "8Gi"}}}});
    const auto v = team_quota("name: a\nreplicas: 1\n", list);
    CHECK(v.fit == QuotaFit::Never);
    CHECK(verdict_line(v) == "failed quota: q: must specify limits.cpu,requests.memory");
}

TEST_CASE("a scoped quota counts only the pods its scopes select", "[doctor][quota]") {
    const json high = {
        {"hard", {{"pods", "1"}}},
        {"scopeSelector",
         {{"matchExpressions",
           {{{"scopeName", "PriorityClass"}, {"operator", "In"}, {"values", {"high"}}}}}}}};
    CHECK(team_quota("name: a\nreplicas: 2\n", quota_list(high)).fit == QuotaFit::NotCounted);
    const auto counted =
        team_quota("name: a\nreplicas: 2\npriorityClassName: high\n", quota_list(high));
    CHECK(counted.fit == QuotaFit::Never);
    CHECK(verdict_line(counted) == "pods: the job asks 2, 0 of 1 used");
    // The Workers' init container asks for CPU: only the Master is BestEffort.
    const json best_effort = {{"hard", {{"pods", "5"}}}, {"scopes", {"BestEffort"}}};
    CHECK(team_quota("name: a\nreplicas: 3\n", quota_list(best_effort)).lines.front().asked == 1);
}

TEST_CASE("a job counts its own kind, its Services and its code's ConfigMap", "[doctor][quota]") {
    const auto list = quota_list(
        {{"hard",
          {{"count/pytorchjobs.kubeflow.org", "2"}, {"services", "3"}, {"count/configmaps", "1"}}}},
        {{"count/configmaps", "1"}});
    const auto v =
        team_quota("name: a\nreplicas: 4\ncode: {path: .}\ncommand: [python3, train.py]\n", list);
    CHECK(v.fit == QuotaFit::Never);
    CHECK(verdict_line(v) == "services: the job asks 4, 0 of 3 used");
    const auto trainjob =
        team_quota("name: a\nkind: TrainJob\nreplicas: 4\n",
                   quota_list({{"hard", {{"count/trainjobs.trainer.kubeflow.org", "0"}}}}));
    CHECK(verdict_line(trainjob) ==
          "count/trainjobs.trainer.kubeflow.org: the job asks 1, 0 of 0 used");
}

TEST_CASE("doctor says each quota's verdict with its fix", "[doctor][quota]") {
    const auto checks =
        quota_checks(recorded(), job_footprint(test::load_job("name: a\nreplicas: 4\n")), "team-a");
    REQUIRE(checks.size() == 1);
    CHECK(checks[0].name == "quota team-quota");
    CHECK(checks[0].state == State::Failed);
    CHECK(checks[0].found ==
          "never fits: pods: the job asks 4, 1 of 3 used; requests.cpu: the job asks 2, 500m of "
          "1 used");
    CHECK(checks[0].fix ==
          "ask for less (resources, replicas) or ask the namespace's admin to raise it; kubectl "
          "describe resourcequota team-quota -n team-a");
    const auto none = quota_checks(json{{"kind", "List"}, {"items", json::array()}},
                                   job_footprint(test::load_job("name: a\n")), "team-a");
    REQUIRE(none.size() == 1);
    CHECK(none[0].found == "no ResourceQuota in team-a");
}

TEST_CASE("a quota's unreadable quantity is named, never read as 0", "[doctor][quota]") {
    const auto list = quota_list({{"hard", {{"requests.cpu", "lots"}, {"pods", "10"}}}});
    const auto v = team_quota("name: a\n", list);
    REQUIRE(v.notes.size() == 1);
    CHECK(v.notes.front().find("hard requests.cpu unreadable") == 0);
    CHECK(v.lines.size() == 1);  // pods alone
}

TEST_CASE("quantities are written as Kubernetes writes them", "[doctor][quota]") {
    CHECK(manifest::quantity_text("requests.cpu", 1.5) == "1500m");
    CHECK(manifest::quantity_text("cpu", 2) == "2");
    CHECK(manifest::quantity_text("limits.memory", 1.5 * 1024 * 1024 * 1024) == "1.5Gi");
    CHECK(manifest::quantity_text("requests.memory", 300.0 * 1024 * 1024) == "300Mi");
    CHECK(manifest::quantity_text("pods", 4) == "4");
}

}  // namespace kftrain::doctor
