#include "backend/kube/runtimes.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "backend/kube/job_lookup.h"
#include "backend/kube/json_fields.h"
#include "backend/kube/kubectl_errors.h"
#include "backend/kube/submit.h"
#include "job/exit_codes.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

constexpr const char* k_cluster_kind = "ClusterTrainingRuntime";
constexpr const char* k_namespaced_kind = "TrainingRuntime";
constexpr const char* k_resources =
    "clustertrainingruntimes.trainer.kubeflow.org,trainingruntimes.trainer.kubeflow.org";
constexpr const char* k_action = "listing training runtimes";

TrainingRuntime runtime_from(const json& item) {
    TrainingRuntime runtime;
    const json& metadata = member(item, "metadata");
    runtime.name = string_at(metadata, "name");
    runtime.kind = string_at(item, "kind");
    runtime.namespace_ = string_at(metadata, "namespace");
    runtime.framework = string_at(member(metadata, "labels"), "trainer.kubeflow.org/framework");
    const json& ml_policy = member(member(item, "spec"), "mlPolicy");
    // A runtime without the label: its mlPolicy's source names the plugin that configures it.
    for (const char* source : {"torch", "jax", "xgboost", "mpi"}) {
        if (runtime.framework.empty() && member(ml_policy, source).is_object()) {
            runtime.framework = source;
        }
    }
    const json& nodes = member(ml_policy, "numNodes");
    if (nodes.is_number_integer()) {
        runtime.num_nodes = nodes.get<int>();
    }
    runtime.created = string_at(metadata, "creationTimestamp");
    return runtime;
}

}  // namespace

util::Result<std::vector<TrainingRuntime>> parse_runtimes(const std::string& list_text) {
    auto items = list_items(list_text);
    if (!items) {
        return items.error_value();
    }
    std::vector<TrainingRuntime> runtimes;
    for (const auto& item : *items) {
        std::string kind = string_at(item, "kind");
        if (kind == k_cluster_kind || kind == k_namespaced_kind) {
            runtimes.push_back(runtime_from(item));
        }
    }
    std::stable_sort(runtimes.begin(), runtimes.end(), [](const auto& a, const auto& b) {
        return std::make_tuple(a.kind != k_cluster_kind, a.namespace_, a.name) <
               std::make_tuple(b.kind != k_cluster_kind, b.namespace_, b.name);
    });
    return runtimes;
}

util::Result<std::vector<TrainingRuntime>> list_runtimes(KubeQueries& queries) {
    auto result = queries.call({"get", k_resources, "-o", "json"});
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        if (classify_kubectl_error(result->err) != KubectlFailure::CrdMissing) {
            return kubectl_failure(*result, k_action);
        }
        std::string hint = queries.serves(manifest::JobKind::PyTorchJob)
                               ? "Kubeflow Trainer v2 is not installed; this cluster runs "
                                 "PyTorchJobs (Kubeflow Training Operator), which need no "
                                 "runtime: submit with kind PyTorchJob"
                               : "Kubeflow Trainer v2 is not installed in this cluster";
        return util::error(explain_kubectl_error(result->err, k_action, hint), k_exit_cluster);
    }
    auto runtimes = parse_runtimes(result->out);
    if (!runtimes) {
        return util::error(fmt::format("{}: {}", k_action, runtimes.error()), k_exit_cluster);
    }
    return runtimes;
}

}  // namespace kftrain::backend::kube
