#pragma once

// A TrainJob's retry budget on a cluster (manifest/retries.h). A TrainJob cannot set it: its
// runtime's JobSet holds failurePolicy.maxRestarts, and runtimePatches cannot reach it in
// Trainer v2.3. So kftrain derives a namespaced TrainingRuntime from the chosen runtime
// (<runtime>-<hash of its spec>), the same but for the budget, and the TrainJob refers to it;
// submit makes the TrainJob its owner, so that it goes with the job, and reuses one that is
// identical.

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::load {

// The annotation a derived runtime names its base with.
inline constexpr const char* k_derived_from_annotation = "kftrain.io/derived-from";

// Return the ClusterTrainingRuntime Trainer v2.3 installs under this name, as kftrain knows it
// (torch-distributed, jax-distributed, xgboost-distributed: one replicated job "node"), for
// rendering without a cluster; nullopt for another runtime.
std::optional<nlohmann::json> builtin_runtime(const std::string& name);

// A runtime derived for a job's budget, and the TrainingRuntime to apply.
struct DerivedRuntime {
    std::string name;
    YAML::Node manifest;
};

// Derive the TrainingRuntime of the job's budget from base (a ClusterTrainingRuntime or
// TrainingRuntime as the API server returns it): its spec, with JobSet's failurePolicy.
// maxRestarts set to the job's retries and every replicated Job's backoffLimit 0 (a node's
// failure fails its Job at once, so each retry is one restart of the whole job, as a v1 kind's
// restart is one replica's). An error names the runtime when base has no spec.template.
util::Result<DerivedRuntime> derive_runtime(const manifest::JobSpec& spec,
                                            const nlohmann::json& base);

// Point a rendered TrainJob's runtimeRef at a derived runtime.
void refer_to_runtime(YAML::Node& trainjob, const DerivedRuntime& runtime);

// Return whether the job needs a derived runtime: a TrainJob with a budget.
bool needs_derived_runtime(const manifest::JobSpec& spec);

}  // namespace kftrain::load
