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
};

}  // namespace kftrain::job
