#pragma once

#include <yaml-cpp/yaml.h>

#include "manifest/job_spec.h"

namespace kftrain::manifest {

// Build the typed job spec from a job file already checked against the schema.
JobSpec to_job_spec(const YAML::Node& root);

}  // namespace kftrain::manifest
