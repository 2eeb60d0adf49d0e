#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "manifest/job_spec.h"

namespace kftrain::manifest {

// Build the typed job spec from a job file already checked against the schema.
JobSpec to_job_spec(const YAML::Node& root);

// Set a TrainJob's runtime from the job file's text: NAME or ClusterTrainingRuntime/NAME (a
// ClusterTrainingRuntime), or TrainingRuntime/NAME (one of the job's namespace).
void set_runtime(JobSpec& spec, const std::string& text);

}  // namespace kftrain::manifest
