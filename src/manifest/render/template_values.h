#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "manifest/render/job_label.h"

namespace kftrain::manifest {

// Kueue's labels on a queued job (not its pods): the LocalQueue and the WorkloadPriorityClass.
inline constexpr const char* k_queue_label = "kueue.x-k8s.io/queue-name";
inline constexpr const char* k_queue_priority_label = "kueue.x-k8s.io/priority-class";

// The default container command: the trainer the image ships.
inline constexpr const char* k_trainer_command = "kftrain-trainer";

// Return the value of every template placeholder for a job; a null node means
// "unset": the key holding the placeholder is dropped from the output.
std::map<std::string, YAML::Node> template_values(const JobSpec& spec);

// Return the container's command and arguments: the job's own, or the trainer
// with its flags and --log-format json.
std::vector<std::string> container_command(const JobSpec& spec);
std::vector<std::string> container_args(const JobSpec& spec);

// Return the environment every replica gets from the job file (user env and
// MLflow settings), as a list of EnvVar nodes with names.
std::vector<std::pair<std::string, EnvVar>> job_environment(const JobSpec& spec);

}  // namespace kftrain::manifest
