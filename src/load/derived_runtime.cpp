#include "load/derived_runtime.h"

#include <fmt/format.h>

#include "load/collect.h"
#include "manifest/retries.h"
#include "manifest/yaml/emit.h"

namespace kftrain::load {
namespace {

// Trainer v2.3's runtimes of one replicated job "node" (manifests/base/runtimes/*.yaml).
struct Builtin {
    const char* name;
    const char* framework;  // the label and the mlPolicy key
    const char* image;
};

constexpr Builtin k_builtins[] = {
    {"torch-distributed", "torch", "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"},
    {"jax-distributed", "jax", "nvcr.io/nvidia/jax:25.10-py3"},
    {"xgboost-distributed", "xgboost", "ghcr.io/kubeflow/trainer/xgboost-runtime"},
};

// A TrainingRuntime's name: a DNS subdomain of at most 253 characters.
constexpr size_t k_max_name = 253;

}  // namespace

std::optional<nlohmann::json> builtin_runtime(const std::string& name) {
    for (const Builtin& b : k_builtins) {
        if (name != b.name) {
            continue;
        }
        nlohmann::json container = {{"name", "node"}, {"image", b.image}};
        nlohmann::json node_job = {
            {"name", "node"},
            {"template",
             {{"metadata",
               {{"labels", {{"trainer.kubeflow.org/trainjob-ancestor-step", "trainer"}}}}},
              {"spec", {{"template", {{"spec", {{"containers", {container}}}}}}}}}}};
        return nlohmann::json{
            {"apiVersion", "trainer.kubeflow.org/v1alpha1"},
            {"kind", "ClusterTrainingRuntime"},
            {"metadata",
             {{"name", b.name}, {"labels", {{"trainer.kubeflow.org/framework", b.framework}}}}},
            {"spec",
             {{"mlPolicy", {{"numNodes", 1}, {b.framework, nlohmann::json::object()}}},
              {"template", {{"spec", {{"replicatedJobs", {node_job}}}}}}}}};
    }
    return std::nullopt;
}

namespace {

// restartPolicy ExitCode, as JobSet and the Job controller express it: a pod that ends with a
// code of 1-127 fails its Job at once (podFailurePolicy, which wants the pod's restartPolicy
// Never), and such a failure fails the JobSet instead of restarting it; 128 and above (signals,
// the OOM kill) fail the Job the default way, which JobSet restarts within maxRestarts.
void permanent_exit_codes(nlohmann::json& jobset) {
    nlohmann::json codes = nlohmann::json::array();
    for (int code = 1; code < 128; ++code) {
        codes.push_back(code);
    }
    for (nlohmann::json& job : jobset["replicatedJobs"]) {
        nlohmann::json& job_spec = job["template"]["spec"];
        job_spec["podFailurePolicy"] = {
            {"rules",
             {{{"action", "FailJob"}, {"onExitCodes", {{"operator", "In"}, {"values", codes}}}}}}};
        job_spec["template"]["spec"]["restartPolicy"] = "Never";
    }
    jobset["failurePolicy"]["rules"] = {{{"name", "permanentExitCode"},
                                         {"action", "FailJobSet"},
                                         {"onJobFailureReasons", {"PodFailurePolicy"}}}};
}

}  // namespace

bool needs_derived_runtime(const manifest::JobSpec& spec) {
    return spec.kind == manifest::JobKind::TrainJob && spec.run_policy.backoff_limit.has_value();
}

util::Result<DerivedRuntime> derive_runtime(const manifest::JobSpec& spec,
                                            const nlohmann::json& base) {
    const auto bad = [&spec](const std::string& what) {
        return util::error(
            fmt::format("runtime {}: {}: kftrain cannot derive the TrainingRuntime "
                        "of the job's retry budget from it",
                        spec.runtime, what));
    };
    if (!base.is_object() || !base.contains("spec") || !base["spec"].is_object()) {
        return bad("it has no spec");
    }
    nlohmann::json derived = base["spec"];
    nlohmann::json& tmpl = derived["template"];
    if (!tmpl.is_object() || !tmpl.contains("spec") || !tmpl["spec"].is_object()) {
        return bad("its spec has no template.spec (the JobSet)");
    }
    nlohmann::json& jobset = tmpl["spec"];
    if (jobset.contains("failurePolicy") && !jobset["failurePolicy"].is_object()) {
        return bad("its failurePolicy is not an object");
    }
    if (!jobset.contains("replicatedJobs") || !jobset["replicatedJobs"].is_array()) {
        return bad("its JobSet has no replicatedJobs");
    }
    jobset["failurePolicy"]["maxRestarts"] =
        manifest::retries_of_backoff_limit(*spec.run_policy.backoff_limit);
    for (nlohmann::json& job : jobset["replicatedJobs"]) {
        if (!job.is_object() || !job.contains("template") || !job["template"].is_object()) {
            return bad("a replicated job has no template");
        }
        job["template"]["spec"]["backoffLimit"] = 0;
    }
    if (spec.restart_policy == "ExitCode") {
        permanent_exit_codes(jobset);
    }
    const std::string hash = code_hash({{"trainingRuntimeSpec", false, derived.dump()}});
    DerivedRuntime out;
    out.name = spec.runtime.substr(0, k_max_name - hash.size() - 1) + "-" + hash;
    nlohmann::json labels = nlohmann::json::object();
    if (base.contains("metadata") && base["metadata"].is_object() &&
        base["metadata"].contains("labels") && base["metadata"]["labels"].is_object()) {
        labels = base["metadata"]["labels"];
    }
    const nlohmann::json runtime = {
        {"apiVersion", "trainer.kubeflow.org/v1alpha1"},
        {"kind", "TrainingRuntime"},
        {"metadata",
         {{"name", out.name},
          {"namespace", spec.namespace_},
          {"labels", labels},
          {"annotations", {{k_derived_from_annotation, spec.runtime}}}}},
        {"spec", derived}};
    out.manifest = manifest::from_json(runtime);
    return out;
}

void refer_to_runtime(YAML::Node& trainjob, const DerivedRuntime& runtime) {
    YAML::Node ref = trainjob["spec"]["runtimeRef"];
    ref["kind"] = manifest::string_node("TrainingRuntime");
    ref["name"] = manifest::string_node(runtime.name);
}

}  // namespace kftrain::load
