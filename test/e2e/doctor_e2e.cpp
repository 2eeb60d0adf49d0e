// kftrain doctor against the real cluster: the kinds before and after their CRDs are loaded,
// real RBAC for a ServiceAccount allowed only to read, jobs that cannot run (too large, an
// absent claim, Secret, LocalQueue or runtime) and an API server that does not answer.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"
#include "support/files.h"
#include "support/json_items.h"

using kftrain::e2e::Namespace;
using nlohmann::json;

namespace {

// The check of that name in a doctor -o json report (fails the test when there is none).
json check_named(const json& report, const std::string& name) {
    return kftrain::test::item_named(report["checks"], name);
}

json doctor_json(const kftrain::test::CliRun& run) {
    INFO(run.out << run.err);
    REQUIRE((run.code == 0 || run.code == 1));
    return json::parse(run.out);
}

}  // namespace

TEST_CASE("doctor names each missing kind and how to install it, before the CRDs are loaded",
          "[e2e][no-crds]") {
    Namespace ns("doctornocrd");
    auto run = ns.kftrain({"doctor"});
    INFO(run.out << run.err);
    CHECK(run.code == 1);
    CHECK(run.out.find("pytorchjobs.kubeflow.org not served: the Kubeflow Training Operator is "
                       "not installed") != std::string::npos);
    CHECK(run.out.find("fix: kubectl apply --server-side -k "
                       "\"github.com/kubeflow/training-operator.git/manifests/overlays/"
                       "standalone?ref=v1.9.4\"") != std::string::npos);
    CHECK(run.out.find("trainer.git/manifests/overlays/manager?ref=v2.3.0") != std::string::npos);
    const json report = doctor_json(ns.kftrain({"doctor", "-o", "json"}));
    CHECK(report["passed"] == false);
    for (const char* kind : {"PyTorchJob", "TrainJob", "TFJob", "XGBoostJob", "JAXJob"}) {
        CHECK(check_named(report, kind)["state"] == "missing");
    }
    CHECK(check_named(report, "job kinds")["state"] == "missing");
    CHECK(check_named(report, "API server")["state"] == "ok");
}

TEST_CASE(
    "doctor passes a cluster with the kinds, a job that cannot run is told why, check by "
    "check",
    "[e2e]") {
    Namespace ns("doctor");
    const json report = doctor_json(ns.kftrain({"doctor", "-o", "json"}));
    INFO(report.dump(2));
    CHECK(report["passed"] == true);
    for (const char* kind : {"PyTorchJob", "TrainJob", "TFJob", "XGBoostJob", "JAXJob"}) {
        CHECK(check_named(report, kind)["state"] == "ok");
    }
    CHECK(check_named(report, "Trainer runtimes")["found"] == "torch-distributed (torch)");
    CHECK(check_named(report, "namespace " + ns.name())["state"] == "ok");
    CHECK(check_named(report, "pytorchjobs.kubeflow.org")["state"] == "ok");  // an admin's
    CHECK(check_named(report, "nodes")["found"].get<std::string>().rfind("1 node: ", 0) == 0);

    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(
        dir + "/big.yaml",
        "name: too-big\nimage: " + kftrain::e2e::busybox_image() +
            "\ncommand: [\"true\"]\nresources: {cpu: \"64\", memory: 1Gi}\n"
            "imagePullSecrets: [absent-secret]\nqueue: absent-queue\n"
            "volumes:\n  - {name: data, claim: absent-claim, mountPath: /data}\n");
    auto big = ns.kftrain({"doctor", "-f", dir + "/big.yaml"});
    INFO(big.out << big.err);
    CHECK(big.code == 1);
    CHECK(big.out.find("fits on no node: largest allocatable is ") != std::string::npos);
    const json job = doctor_json(ns.kftrain({"doctor", "-f", dir + "/big.yaml", "-o", "json"}));
    CHECK(check_named(job, "fits on a node")["state"] == "failed");
    CHECK(check_named(job, "claim absent-claim")["state"] == "missing");
    CHECK(check_named(job, "secret absent-secret")["state"] == "missing");
    CHECK(check_named(job, "LocalQueue absent-queue")["state"] == "missing");
    CHECK(job["verdict"].get<std::string>().rfind("submit would not run: ", 0) == 0);

    kftrain::test::write_file(dir + "/runtime.yaml",
                              "name: no-runtime\nkind: TrainJob\nruntime: absent-runtime\n"
                              "image: " +
                                  kftrain::e2e::busybox_image() + "\ncommand: [\"true\"]\n");
    const json trainjob =
        doctor_json(ns.kftrain({"doctor", "-f", dir + "/runtime.yaml", "-o", "json"}));
    CHECK(check_named(trainjob, "runtime ClusterTrainingRuntime/absent-runtime")["state"] ==
          "missing");
    CHECK(trainjob["passed"] == false);
}

TEST_CASE("doctor as a ServiceAccount allowed only get and list names the permissions it lacks",
          "[e2e]") {
    Namespace ns("doctorrbac");
    ns.apply("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: viewer\n");
    ns.apply(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: read-only\n"
        "rules:\n  - apiGroups: [\"*\"]\n    resources: [\"*\"]\n    verbs: [get, list]\n");
    ns.apply(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n"
        "  name: viewer-read-only\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n"
        "  kind: Role\n  name: read-only\nsubjects:\n  - kind: ServiceAccount\n"
        "    name: viewer\n    namespace: " +
        ns.name() + "\n");
    // The account's token (1.20 makes a token Secret for each ServiceAccount) in a kubeconfig
    // of its own, beside the cluster's server and CA.
    std::string token;
    kftrain::e2e::poll_until(
        "the ServiceAccount's token", std::chrono::seconds(60), [&](std::string& last) {
            auto secret = ns.kubectl({"get", "secrets", "-o",
                                      "jsonpath={.items[?(@.metadata.annotations.kubernetes\\.io/"
                                      "service-account\\.name==\"viewer\")].data.token}"});
            last = secret.out + secret.err;
            token = secret.out;
            return secret.code == 0 && !token.empty();
        });
    auto decoded = kftrain::test::run_program({"base64", "-d"}, token);
    REQUIRE(decoded.code == 0);
    const json admin = json::parse(
        kftrain::e2e::kubectl({"config", "view", "--raw", "--minify", "-o", "json"}).out);
    const json& cluster = admin["clusters"][0]["cluster"];
    const json config = {
        {"apiVersion", "v1"},
        {"kind", "Config"},
        {"clusters", {{{"name", "mini"}, {"cluster", cluster}}}},
        {"users", {{{"name", "viewer"}, {"user", {{"token", decoded.out}}}}}},
        {"contexts",
         {{{"name", "viewer"},
           {"context", {{"cluster", "mini"}, {"user", "viewer"}, {"namespace", ns.name()}}}}}},
        {"current-context", "viewer"}};
    const std::string kubeconfig = kftrain::test::make_temp_dir() + "/viewer.kubeconfig";
    kftrain::test::write_file(kubeconfig, config.dump());

    auto run = ns.kftrain({"--kubeconfig", kubeconfig, "doctor", "-o", "json"});
    const json report = doctor_json(run);
    INFO(report.dump(2));
    CHECK(run.code == 1);
    const json jobs = check_named(report, "pytorchjobs.kubeflow.org");
    CHECK(jobs["state"] == "failed");
    CHECK(jobs["found"].get<std::string>().rfind("create, watch, patch, delete denied", 0) == 0);
    CHECK(check_named(report, "pods/log")["state"] == "ok");
    CHECK(check_named(report, "configmaps")["state"] == "failed");
    CHECK(check_named(report, "nodes")["state"] == "skipped");  // listing nodes is cluster-wide
}

TEST_CASE("doctor against an API server that does not answer fails once, within its timeout",
          "[e2e]") {
    const std::string kubeconfig = kftrain::test::make_temp_dir() + "/away.kubeconfig";
    kftrain::test::write_file(
        kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n  - name: away\n    cluster:\n"
        "      server: https://127.0.0.1:1\ncontexts:\n  - name: away\n    context:\n"
        "      cluster: away\n      user: nobody\nusers:\n  - name: nobody\n    user: {token: x}\n"
        "current-context: away\n");
    auto run = kftrain::e2e::kftrain(
        "default", {"--kubeconfig", kubeconfig, "--request-timeout", "5s", "doctor", "-o", "json"});
    const json report = doctor_json(run);
    INFO(report.dump(2));
    CHECK(run.code == 1);
    CHECK(check_named(report, "kubectl")["state"] == "ok");
    CHECK(check_named(report, "API server")["state"] == "failed");
    CHECK(check_named(report, "API server")["found"].get<std::string>().rfind("not reachable: ",
                                                                              0) == 0);
    CHECK(check_named(report, "the rest")["state"] == "skipped");
    CHECK(report["verdict"] == "not ready: client API server failed");
}
