#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "manifest/render/template.h"
#include "util/result.h"

namespace kftrain::manifest {

// Render a job into the document its template makes (the template's kind must be
// the job's) by placing typed values at the template's placeholders. Fails on
// invalid YAML, an unknown placeholder, a template of the other kind, or, for a
// TrainJob, a job-file key it cannot express.
util::Result<YAML::Node> render_job(const JobSpec& spec, const Template& tmpl);

// Return the names of the placeholders a template may use.
std::vector<std::string> placeholder_names();

}  // namespace kftrain::manifest
