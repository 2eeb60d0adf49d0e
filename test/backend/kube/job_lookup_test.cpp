#include "backend/kube/job_lookup.h"

#include <catch2/catch.hpp>

#include "backend/kube/kubectl_errors.h"
#include "backend/kube/runtimes.h"
#include "backend/kube/submit.h"
#include "support/test_data.h"

using namespace kftrain;
using kftrain::manifest::JobKind;
using kftrain::test::read_test_data;

TEST_CASE("a lookup of both kinds finds the job of either, a PyTorchJob first", "[cluster][kube]") {
    auto none = backend::kube::pick_found_job("");  // --ignore-not-found: kubectl printed nothing
    REQUIRE(none);
    CHECK_FALSE(*none);
    auto empty =
        backend::kube::pick_found_job(R"({"apiVersion": "v1", "items": [], "kind": "List"})");
    REQUIRE(empty);
    CHECK_FALSE(*empty);
    const std::string trainjob = read_test_data("kube/trainjob-v23-running.json");
    auto one = backend::kube::pick_found_job(R"({"kind": "List", "items": [)" + trainjob + "]}");
    REQUIRE(one);
    REQUIRE(*one);
    CHECK((*one)->kind == JobKind::TrainJob);
    CHECK((*one)->object["metadata"]["name"] == "mnist-trainjob");
    auto both = backend::kube::pick_found_job(R"({"kind": "List", "items": [)" + trainjob + "," +
                                              read_test_data("kube/job-v19-running.json") + "]}");
    REQUIRE(both);
    CHECK((*both)->kind == JobKind::PyTorchJob);
    auto garbage = backend::kube::pick_found_job("<html>");
    REQUIRE_FALSE(garbage);
    CHECK(garbage.error_code(0) == 4);
}

TEST_CASE("kubectl's stderr says which kind the cluster does not serve", "[cluster][kube]") {
    struct Case {
        const char* stderr_text;
        std::optional<JobKind> kind;
    };
    const Case cases[] = {
        {"error: the server doesn't have a resource type \"trainjobs\"", JobKind::TrainJob},
        {"error: the server doesn't have a resource type \"pytorchjobs\"", JobKind::PyTorchJob},
        {"error: the server doesn't have a resource type \"pytorchjob\"", JobKind::PyTorchJob},
        {"error: resource mapping not found for name: \"x\" namespace: \"ml\" from \"STDIN\": no "
         "matches for kind \"TrainJob\" in version \"trainer.kubeflow.org/v1alpha1\"\nensure CRDs "
         "are installed first",
         JobKind::TrainJob},
        {"error: the server doesn't have a resource type \"clustertrainingruntimes\"",
         std::nullopt},
        {"Error from server (NotFound): trainjobs.trainer.kubeflow.org \"x\" not found",
         std::nullopt},
    };
    for (const auto& c : cases) {
        CAPTURE(c.stderr_text);
        CHECK(backend::kube::unserved_kind(c.stderr_text) == c.kind);
    }
    CHECK(backend::kube::classify_kubectl_error(cases[0].stderr_text) ==
          backend::kube::KubectlFailure::CrdMissing);
    CHECK(backend::kube::explain_kubectl_error(cases[0].stderr_text, "reading trainjob/x") ==
          "reading trainjob/x: the server doesn't have a resource type \"trainjobs\" (hint: "
          "Kubeflow Trainer v2 (TrainJob CRD) is not installed in this cluster)");
}

TEST_CASE("submitting a kind the cluster lacks names the kind it serves", "[cluster][kube]") {
    CHECK(backend::kube::other_kind_hint(JobKind::PyTorchJob) ==
          "this cluster serves TrainJob (Kubeflow Trainer v2): use --kind TrainJob");
    CHECK(backend::kube::other_kind_hint(JobKind::TrainJob) ==
          "this cluster serves PyTorchJob (Kubeflow Training Operator): use --kind PyTorchJob");
    CHECK(backend::kube::other_kind_hint(JobKind::XGBoostJob) ==
          "this cluster serves TrainJob (Kubeflow Trainer v2): use --kind TrainJob with runtime "
          "xgboost-distributed");
}

TEST_CASE("training runtimes read their kind, framework label and numNodes", "[cluster][kube]") {
    auto runtimes = backend::kube::parse_runtimes(read_test_data("kube/runtimes-v23.json"));
    REQUIRE(runtimes);
    REQUIRE(runtimes->size() == 3);
    const auto& torch = runtimes->at(1);
    CHECK(torch.name == "torch-distributed");
    CHECK(torch.kind == "ClusterTrainingRuntime");
    CHECK(torch.framework == "torch");
    CHECK(torch.num_nodes == 1);
    CHECK(torch.namespace_ == "");
    const auto& small = runtimes->at(2);  // namespaced runtimes after the cluster's
    CHECK(small.kind == "TrainingRuntime");
    CHECK(small.namespace_ == "ml-training");
    CHECK(small.num_nodes == 2);
    CHECK(small.created == "2026-04-28T15:30:00Z");
    CHECK_FALSE(backend::kube::parse_runtimes("{}"));
}

TEST_CASE("a runtime without the framework label is known by its mlPolicy's source",
          "[cluster][kube][frameworks]") {
    auto runtimes = backend::kube::parse_runtimes(R"({"kind": "List", "items": [
        {"kind": "ClusterTrainingRuntime", "metadata": {"name": "my-boost"},
         "spec": {"mlPolicy": {"numNodes": 2, "xgboost": {}}}},
        {"kind": "ClusterTrainingRuntime", "metadata": {"name": "my-mpi",
         "labels": {"trainer.kubeflow.org/framework": "deepspeed"}},
         "spec": {"mlPolicy": {"mpi": {"numProcPerNode": 1}}}},
        {"kind": "ClusterTrainingRuntime", "metadata": {"name": "plain"}, "spec": {}}]})");
    REQUIRE(runtimes);
    REQUIRE(runtimes->size() == 3);
    CHECK(runtimes->at(0).framework == "xgboost");
    CHECK(runtimes->at(0).num_nodes == 2);
    CHECK(runtimes->at(1).framework == "deepspeed");  // the label wins
    CHECK(runtimes->at(2).framework == "");
}
