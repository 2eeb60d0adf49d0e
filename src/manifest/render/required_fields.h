#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "manifest/render/template.h"
#include "util/result.h"

namespace kftrain::manifest {

// Return the dotted paths a rendered document of the job's kind must hold, each a
// non-empty value: apiVersion, metadata.name, and for a PyTorchJob the image of the
// container named pytorch in every replica spec ("...containers[pytorch].image"), for a
// TrainJob the runtime, the trainer's image and numNodes.
std::vector<std::string> required_paths(const JobSpec& spec);

// Check that a rendered document still holds every required path, so a template whose
// placeholder erased one (image: "{{ priorityClassName }}" with no priority class) fails
// here and not on the cluster. tmpl is the template it was rendered from: the message names
// the placeholder there that left the field out, and its line.
util::Status check_required_fields(const YAML::Node& rendered, const Template& tmpl,
                                   const JobSpec& spec);

}  // namespace kftrain::manifest
