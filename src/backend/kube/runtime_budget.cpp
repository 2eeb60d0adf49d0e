#include "backend/kube/runtime_budget.h"

#include <fmt/format.h>

#include "backend/kube/kubectl_errors.h"
#include "job/exit_codes.h"
#include "load/derived_runtime.h"
#include "manifest/yaml/emit.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

constexpr const char* k_cluster_runtimes = "clustertrainingruntimes.trainer.kubeflow.org";
constexpr const char* k_runtimes = "trainingruntimes.trainer.kubeflow.org";

// Read an object as JSON; null when it does not exist.
util::Result<nlohmann::json> read_object(KubeQueries& queries, const std::string& resource,
                                         const std::string& name, bool in_namespace,
                                         const std::string& action) {
    auto result =
        queries.call({"get", resource, name, "-o", "json", "--ignore-not-found"}, in_namespace);
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        return kubectl_failure(*result, action);
    }
    if (util::trim(result->out).empty()) {
        return nlohmann::json();
    }
    nlohmann::json object = nlohmann::json::parse(result->out, nullptr, false);
    if (!object.is_object()) {
        return util::error(fmt::format("{}: kubectl printed no JSON object", action),
                           k_exit_cluster);
    }
    return object;
}

}  // namespace

util::Result<RuntimeApplied> apply_budget_runtime(KubeQueries& queries, job::RenderedJob& job,
                                                  bool dry_run_server) {
    if (!load::needs_derived_runtime(job.spec)) {
        return RuntimeApplied{};
    }
    const bool namespaced = job.spec.runtime_namespaced;
    const std::string action = fmt::format(
        "reading runtime {} (the job's retry budget is "
        "derived from it)",
        job.spec.runtime);
    auto base = read_object(queries, namespaced ? k_runtimes : k_cluster_runtimes, job.spec.runtime,
                            namespaced, action);
    if (!base) {
        return base.error_value();
    }
    if (base->is_null()) {
        return util::error(fmt::format("runtime {}: the cluster has no {} of that name "
                                       "(kftrain runtimes lists those it has)",
                                       job.spec.runtime,
                                       namespaced ? "TrainingRuntime" : "ClusterTrainingRuntime"),
                           k_exit_not_found);
    }
    auto derived = load::derive_runtime(job.spec, *base);
    if (!derived) {
        return util::error(derived.error(), k_exit_cluster);
    }
    load::refer_to_runtime(job.manifest, *derived);
    job.runtime = derived->manifest;
    RuntimeApplied applied;
    applied.name = derived->name;
    auto existing = read_object(queries, k_runtimes, derived->name, true,
                                "reading trainingruntime/" + derived->name);
    if (!existing) {
        return existing.error_value();
    }
    if (!existing->is_null()) {  // its name is its content: the same runtime, reused
        applied.owners = (*existing)["metadata"].value("ownerReferences", nlohmann::json());
        return applied;
    }
    std::vector<std::string> args = {"apply", "-f", "-", "--namespace", job.spec.namespace_};
    if (dry_run_server) {
        args.push_back("--dry-run=server");
    }
    auto result = queries.call(args, false, manifest::to_yaml(derived->manifest));
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        return util::error(
            explain_kubectl_error(result->err, "creating trainingruntime/" + derived->name +
                                                   " (the job's retry budget)"),
            k_exit_cluster);
    }
    applied.created = !dry_run_server;
    return applied;
}

util::Status own_budget_runtime(KubeQueries& queries, const RuntimeApplied& runtime,
                                const Owner& owner) {
    if (runtime.name.empty()) {
        return util::ok_status();
    }
    return add_owner(queries, k_runtimes, runtime.name, runtime.owners, owner);
}

void remove_budget_runtime(KubeQueries& queries, const RuntimeApplied& runtime) {
    if (runtime.created) {
        (void)queries.call(
            {"delete", k_runtimes, runtime.name, "--ignore-not-found", "--wait=false"});
    }
}

}  // namespace kftrain::backend::kube
