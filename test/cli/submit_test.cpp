#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "manifest/load.h"
#include "support/cli_runner.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/test_data.h"

using kftrain::test::run_kftrain;

namespace {

// A fake kubectl in a temporary directory, with what it was asked recorded.
struct FakeKubectl {
    std::string dir = kftrain::test::make_temp_dir();
    std::string record = dir + "/calls.jsonl";
    std::string scenario = dir + "/scenario.json";

    // crds: the resources the cluster serves (null: the fake's default, every one).
    explicit FakeKubectl(const nlohmann::json& failures = nlohmann::json::array(),
                         const nlohmann::json& crds = nullptr) {
        nlohmann::json scenario_json = {{"failures", failures}};
        if (!crds.is_null()) {
            scenario_json["crds"] = crds;
        }
        kftrain::test::write_file(scenario, scenario_json.dump());
    }

    std::map<std::string, std::string> env() const {
        return {{"KFTRAIN_KUBECTL", kftrain::test::fake_kubectl()},
                {"KFTRAIN_FAKE_RECORD", record},
                {"KFTRAIN_FAKE_SCENARIO", scenario}};
    }

    // Return every call kubectl received, in order.
    std::vector<nlohmann::json> calls() const {
        std::vector<nlohmann::json> out;
        std::ifstream in(record);
        for (std::string line; std::getline(in, line);) {
            out.push_back(nlohmann::json::parse(line));
        }
        return out;
    }
};

nlohmann::json failure(std::vector<std::string> when, std::string stderr_text) {
    return {{"when", when}, {"stderr", stderr_text}, {"exit", 1}};
}

}  // namespace

TEST_CASE("submit applies the rendered job with kubectl and the global flags", "[cli][submit]") {
    FakeKubectl kubectl;
    auto run =
        run_kftrain({"submit", "-f", kftrain::test::k_example_job, "-n", "ml-training", "--context",
                     "prod", "--kubeconfig", "/etc/kube/config", "--request-timeout", "30s"},
                    kubectl.env());
    CHECK(run.err.empty());
    CHECK(run.out == "pytorchjob/mnist-ddp submitted\n");
    REQUIRE(run.code == 0);
    auto calls = kubectl.calls();
    // The namespace's quotas first (docs/shared-clusters.md), then who submits it (the
    // kubeconfig user: a label the job's record in history keeps).
    REQUIRE(calls.size() == 3);
    CHECK(calls[0]["argv"] == nlohmann::json{"--context=prod", "--kubeconfig=/etc/kube/config",
                                             "--request-timeout=30s", "get",
                                             "resourcequotas,limitranges", "-o", "json",
                                             "--namespace", "ml-training"});
    CHECK(calls[1]["argv"] == nlohmann::json{"--context=prod", "--kubeconfig=/etc/kube/config",
                                             "--request-timeout=30s", "config", "view", "--minify",
                                             "-o", "json"});
    CHECK(calls[2]["argv"] == nlohmann::json{"--context=prod", "--kubeconfig=/etc/kube/config",
                                             "--request-timeout=30s", "apply", "--server-side",
                                             "--field-manager=kftrain", "--force-conflicts", "-f",
                                             "-", "--namespace", "ml-training"});
    auto rendered =
        run_kftrain({"render", "-f", kftrain::test::k_example_job, "-n", "ml-training"});
    CHECK(calls[2]["stdin"] == rendered.out);
}

TEST_CASE("submit --dry-run prints what would be applied and runs no kubectl", "[cli][submit]") {
    FakeKubectl kubectl;
    auto rendered = run_kftrain({"render", "-f", kftrain::test::k_example_job});
    for (const auto& flag : {"--dry-run", "--dry-run=client"}) {
        auto run = run_kftrain({"submit", "-f", kftrain::test::k_example_job, flag}, kubectl.env());
        CHECK(run.code == 0);
        CHECK(run.out == rendered.out);
    }
    CHECK(kubectl.calls().empty());
}

TEST_CASE("submit --dry-run=server asks the API server and says nothing was created",
          "[cli][submit]") {
    FakeKubectl kubectl;
    auto run = run_kftrain({"submit", "-f", kftrain::test::k_example_job, "--dry-run=server"},
                           kubectl.env());
    CHECK(run.code == 0);
    CHECK(run.out == "pytorchjob/mnist-ddp accepted by the server (dry run: nothing created)\n");
    auto calls = kubectl.calls();
    REQUIRE(calls.size() == 3);
    CHECK(calls[2]["argv"] == nlohmann::json{"apply", "--server-side", "--field-manager=kftrain",
                                             "--force-conflicts", "-f", "-", "--namespace",
                                             "ml-training", "--dry-run=server"});
}

TEST_CASE("submit runs no kubectl on bad input and exits 2", "[cli][submit]") {
    FakeKubectl kubectl;
    std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/bad.yaml", "name: Bad_Name\n");
    const std::vector<std::vector<std::string>> cases = {
        {"submit", "-f", dir + "/bad.yaml"},
        {"submit", "-f", dir + "/missing.yaml"},
        {"submit", "-f", kftrain::test::k_example_job, "--set", "replicas=-1"},
        {"submit", "-f", kftrain::test::k_example_job, "--set", "elasticPolicy.maxReplicas=4",
         "--set", "replicas=1"},
        {"submit", "-f", kftrain::test::k_example_job, "--dry-run=maybe"},
        {"submit", "-f", kftrain::test::k_example_job, "--template",
         dir + "/missing-template.yaml"},
    };
    for (const auto& args : cases) {
        INFO(args.back());
        auto run = run_kftrain(args, kubectl.env());
        CHECK(run.code == 2);
        CHECK(run.out.empty());
        CHECK(run.err.rfind("kftrain: error: ", 0) == 0);
    }
    CHECK(kubectl.calls().empty());
}

TEST_CASE("kubectl failures give kubectl's reason, a hint and exit 4", "[cli][submit]") {
    struct Case {
        std::string what;
        std::string stderr_text;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"missing context", "error: context \"prod\" does not exist\n",
         "kftrain: error: submitting pytorchjob/mnist-ddp: context \"prod\" does not exist (hint: "
         "list the contexts with 'kubectl config get-contexts')\n"},
        {"unreachable cluster",
         "Unable to connect to the server: dial tcp 10.0.0.1:6443: i/o timeout\n",
         "kftrain: error: submitting pytorchjob/mnist-ddp: Unable to connect to the server: dial "
         "tcp 10.0.0.1:6443: i/o timeout (hint: the cluster is unreachable: check --context, "
         "--kubeconfig and the network, or run on this machine with --local)\n"},
        {"CRD not installed",
         "error: resource mapping not found for name: \"mnist-ddp\" namespace: \"ml-training\" "
         "from \"STDIN\": no matches for kind \"PyTorchJob\" in version \"kubeflow.org/v1\"\n"
         "ensure CRDs are installed first\n",
         "kftrain: error: submitting pytorchjob/mnist-ddp: resource mapping not found for name: "
         "\"mnist-ddp\" namespace: \"ml-training\" from \"STDIN\": no matches for kind "
         "\"PyTorchJob\" in version \"kubeflow.org/v1\" (hint: the Kubeflow Training Operator "
         "(PyTorchJob CRD) is not installed in this "
         "cluster)\n"},
        {"RBAC",
         "Error from server (Forbidden): error when creating \"STDIN\": pytorchjobs.kubeflow.org "
         "is forbidden: User \"dev\" cannot create resource \"pytorchjobs\" in API group "
         "\"kubeflow.org\" in the namespace \"ml-training\"\n",
         "kftrain: error: submitting pytorchjob/mnist-ddp: Error from server (Forbidden): error "
         "when creating \"STDIN\": pytorchjobs.kubeflow.org is forbidden: User \"dev\" cannot "
         "create resource \"pytorchjobs\" in API group \"kubeflow.org\" in the namespace "
         "\"ml-training\" (hint: your account lacks the RBAC permission for this in that "
         "namespace)\n"},
        {"webhook",
         "Error from server (Forbidden): error when creating \"STDIN\": admission webhook "
         "\"validating.pytorchjob.kubeflow.org\" denied the request: spec.pytorchReplicaSpecs: "
         "Forbidden: must have Master\n",
         "kftrain: error: submitting pytorchjob/mnist-ddp: Error from server (Forbidden): error "
         "when creating \"STDIN\": admission webhook \"validating.pytorchjob.kubeflow.org\" denied "
         "the request: spec.pytorchReplicaSpecs: Forbidden: must have Master (hint: the API "
         "server rejected the job; 'kftrain render' shows what was sent)\n"},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        // A cluster with neither CRD, so no hint names the other kind.
        FakeKubectl kubectl(nlohmann::json::array({failure({"apply"}, c.stderr_text)}),
                            nlohmann::json::array());
        auto run = run_kftrain({"submit", "-f", kftrain::test::k_example_job, "--context", "prod"},
                               kubectl.env());
        CHECK(run.code == 4);
        CHECK(run.out.empty());
        CHECK(run.err == c.message);
    }
}

TEST_CASE("a missing kubectl is reported with a hint and exit 4", "[cli][submit]") {
    auto run = run_kftrain({"submit", "-f", kftrain::test::k_example_job},
                           {{"KFTRAIN_KUBECTL", "/nonexistent/kubectl"}});
    CHECK(run.code == 4);
    CHECK(run.err ==
          "kftrain: error: kubectl not found (/nonexistent/kubectl): install kubectl or point "
          "KFTRAIN_KUBECTL at it, or run the job on this machine with --local\n");
}
