// kftrain doctor's rules: version skew, whether a job fits on a node, the permissions asked and
// read back, and the verdict.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "doctor/access.h"
#include "doctor/fit.h"
#include "doctor/report.h"
#include "doctor/versions.h"

namespace kftrain::doctor {

using nlohmann::json;

TEST_CASE("doctor reads kubectl's versions and holds them to one minor version of skew",
          "[doctor]") {
    REQUIRE(parse_version("v1.32.3"));
    CHECK(parse_version("v1.20.2-dirty")->minor == 20);
    CHECK(parse_version("v1.27.4+k3s1")->major == 1);
    CHECK_FALSE(parse_version(""));
    CHECK_FALSE(parse_version("v1"));
    CHECK_FALSE(parse_version("latest"));
    const Version server = *parse_version("v1.20.2");
    const Check near = version_skew_check(*parse_version("v1.21.0"), server);
    CHECK(near.state == State::Ok);
    CHECK(near.found == "kubectl v1.21.0 against API server v1.20.2 (within one minor version)");
    const Check far = version_skew_check(*parse_version("v1.32.3"), server);
    CHECK(far.state == State::Warning);
    CHECK(far.found ==
          "kubectl v1.32.3 against API server v1.20.2 (12 minor versions apart; kubectl "
          "supports one)");
    CHECK(far.fix == "install a kubectl of v1.20, within one minor version of the server");
    CHECK_FALSE(fails(far));  // kubectl mostly works past the policy: a warning, not a failure
}

namespace {

kftrain::manifest::JobSpec asking(const std::string& cpu, const std::string& memory, int gpus) {
    kftrain::manifest::JobSpec spec;
    spec.resources.cpu = cpu;
    spec.resources.memory = memory;
    spec.resources.gpus = gpus;
    return spec;
}

Node node(const std::string& name, double cpu, double gib, long long gpus = 0) {
    Node n;
    n.name = name;
    n.cpu = cpu;
    n.memory = gib * 1024 * 1024 * 1024;
    n.gpus = gpus;
    return n;
}

}  // namespace

TEST_CASE("doctor says whether a replica fits on a node, and names the largest when not",
          "[doctor]") {
    const std::vector<Node> nodes = {node("small", 2, 7.5), node("big", 8, 31.2)};
    const Check fits = fit_check(asking("4", "16Gi", 0), nodes);
    CHECK(fits.state == State::Ok);
    CHECK(fits.found ==
          "each replica asks 4 CPUs, 16.0 GiB memory, 0 GPUs; fits on big (8 CPUs, 31.2 GiB "
          "memory, 0 GPUs)");
    const Check too_big = fit_check(asking("64", "1Gi", 0), nodes);
    CHECK(too_big.state == State::Failed);
    CHECK(too_big.found ==
          "each replica asks 64 CPUs, 1.0 GiB memory, 0 GPUs; fits on no node: largest "
          "allocatable is 8 CPUs, 31.2 GiB memory, 0 GPUs (big)");
    CHECK(fails(too_big));
    const Check gpu = fit_check(asking("1", "1Gi", 1), nodes);
    CHECK(gpu.state == State::Failed);
    CHECK(gpu.found ==
          "each replica asks 1 CPU, 1.0 GiB memory, 1 GPU; no node it may go to "
          "has a GPU (nvidia.com/gpu)");
    // A limit alone is the request, as the API server defaults it.
    kftrain::manifest::JobSpec limit_only;
    limit_only.resources.cpu_limit = "500m";
    CHECK(replica_request(limit_only).cpu == 0.5);
}

TEST_CASE("doctor counts only the nodes a job's pods may go to", "[doctor]") {
    Node tainted = node("gpu-node", 16, 64, 4);
    tainted.taints = {{"nvidia.com/gpu", "present", "NoSchedule"}};
    tainted.gpu_product = "NVIDIA-H100-80GB-HBM3";
    Node cordoned = node("cordoned", 64, 256);
    cordoned.schedulable = false;
    const std::vector<Node> nodes = {node("cpu-node", 4, 15), tainted, cordoned};
    auto spec = asking("1", "1Gi", 1);
    CHECK(fit_check(spec, nodes).state == State::Failed);  // the GPU node's taint is not tolerated
    spec.tolerations = {{"nvidia.com/gpu", "Exists", "", "NoSchedule", std::nullopt}};
    CHECK(fit_check(spec, nodes).state == State::Ok);
    CHECK(fit_check(asking("32", "1Gi", 0), nodes).state == State::Failed);  // only cordoned's
    // A nodeSelector keeps to the nodes labelled so.
    auto selected = asking("1", "1Gi", 0);
    selected.node_selector = {{"pool", "big"}};
    CHECK(fit_check(selected, nodes).state == State::Failed);
    Node labelled = node("labelled", 4, 15);
    labelled.labels = {{"pool", "big"}};
    CHECK(fit_check(selected, {labelled}).state == State::Ok);
    CHECK(nodes_summary(nodes) ==
          "2 of 3 nodes schedulable: 84 CPUs, 335.0 GiB memory, 4 GPUs (4 x "
          "NVIDIA-H100-80GB-HBM3)");
    CHECK(nodes_summary({node("one", 2, 23.4)}) == "1 node: 2 CPUs, 23.4 GiB memory, no GPUs");
}

TEST_CASE("doctor asks every permission as a SelfSubjectAccessReview and reads the answers",
          "[doctor]") {
    const auto accesses = needed_access({"pytorchjobs.kubeflow.org"}, false, false);
    const json reviews = access_reviews(accesses, "team-a");
    REQUIRE(reviews["kind"] == "List");
    const json& first = reviews["items"][0];
    CHECK(first["kind"] == "SelfSubjectAccessReview");
    CHECK(first["spec"]["resourceAttributes"] == json{{"namespace", "team-a"},
                                                      {"verb", "create"},
                                                      {"group", "kubeflow.org"},
                                                      {"resource", "pytorchjobs"}});
    // The API server's answers: everything allowed but the writes on pytorchjobs.
    json answer = reviews;
    for (auto& item : answer["items"]) {
        const std::string verb = item["spec"]["resourceAttributes"]["verb"];
        const bool job = item["spec"]["resourceAttributes"]["resource"] == "pytorchjobs";
        item["status"] = {
            {"allowed", !(job && verb != "get" && verb != "list" && verb != "watch")}};
    }
    const auto checks = access_checks(accesses, answer, "team-a");
    REQUIRE(checks.size() == accesses.size());
    CHECK(checks[0].name == "pytorchjobs.kubeflow.org");
    CHECK(checks[0].state == State::Failed);
    CHECK(checks[0].found ==
          "create, patch, delete denied (needed by submit, status, list, suspend, delete)");
    CHECK(checks[0].fix ==
          "a Role in team-a granting create, patch, delete on pytorchjobs.kubeflow.org, bound to "
          "you (kubectl auth can-i create pytorchjobs.kubeflow.org -n team-a)");
    CHECK(checks[2].name == "pods/log");
    CHECK(checks[2].state == State::Ok);
    // An answer that is not one per question fails every check, saying so.
    const auto unread =
        access_checks(accesses, json{{"kind", "List"}, {"items", json::array()}}, "team-a");
    CHECK(unread[1].found == "the API server's answer to the access reviews could not be read");
}

TEST_CASE("doctor reads an access-review answer of any shape as unread, never an abort",
          "[doctor]") {
    const auto accesses = needed_access({"pytorchjobs.kubeflow.org"}, false, false);
    const json one_review = {{"kind", "SelfSubjectAccessReview"}, {"status", "allowed"}};
    const std::vector<json> answers = {
        json{{"kind", "List"}, {"items", "not a list"}},
        json{{"kind", "List"}, {"items", {{"a", 1}}}},
        json{{"kind", "List"}, {"items", 42}},
        json{{"kind", "List"}, {"items", nullptr}},
        json{{"kind", "List"}},
        json{{"kind", 7}, {"items", json::array()}},
        json{{"kind", "List"}, {"items", {"a", 1, nullptr, json::array()}}},
        json{{"kind", "List"}, {"items", {one_review}}},
        one_review,
        json("List"),
        json::array({1, 2}),
    };
    for (const json& answer : answers) {
        INFO(answer.dump());
        const auto checks = access_checks(accesses, answer, "team-a");
        REQUIRE(checks.size() == accesses.size());
        for (const auto& check : checks) {
            CHECK(check.state == State::Failed);
            CHECK(check.found == "the API server's answer to the access reviews could not be read");
        }
    }
}

TEST_CASE("doctor's verdict names the first failure and counts the rest", "[doctor]") {
    std::vector<Check> checks = {check("client", "kubectl", State::Ok, "v1.32.3"),
                                 check("cluster", "Katib", State::Missing, "", "", false)};
    CHECK(verdict(checks, false, false) == "ready: jobs can be submitted here");
    checks.push_back(check("cluster", "PyTorchJob", State::Missing, "not served"));
    checks.push_back(check("job", "fits on a node", State::Failed, "no"));
    CHECK(verdict(checks, true, false) ==
          "submit would not run: cluster PyTorchJob missing (and 1 more)");
    CHECK_FALSE(passed(Report{checks, ""}));
}

}  // namespace kftrain::doctor
