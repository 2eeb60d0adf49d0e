#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>

#include "manifest/code.h"
#include "manifest/job_spec.h"

namespace kftrain::job {

// A job loaded and rendered into its PyTorchJob or TrainJob.
struct RenderedJob {
    manifest::JobSpec spec;
    YAML::Node manifest;
    // The folder it ships (code), and the ConfigMap holding it on a cluster; none without code.
    std::optional<manifest::CodeBundle> code;
    YAML::Node code_config_map;
    // A TrainJob with a retry budget: the TrainingRuntime derived for it, applied before the job
    // (load/derived_runtime.h); null for any other job, or where kftrain has no copy of the
    // runtime to derive it from (submit then derives it from the cluster's).
    YAML::Node runtime;
};

}  // namespace kftrain::job
