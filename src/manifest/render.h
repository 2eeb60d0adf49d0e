#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::manifest {

// A PyTorchJob template: its YAML text and the name used in messages.
struct Template {
    std::string text;
    std::string name;
};

// Return the PyTorchJob template built into kftrain (templates/pytorchjob.yaml).
Template default_template();

// Render a job into a PyTorchJob document by placing typed values at the
// template's placeholders. Fails on invalid YAML or an unknown placeholder.
util::Result<YAML::Node> render_job(const JobSpec& spec, const Template& tmpl);

// Return the names of the placeholders a template may use.
std::vector<std::string> placeholder_names();

}  // namespace kftrain::manifest
