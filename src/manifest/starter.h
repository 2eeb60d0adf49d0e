#pragma once

#include <string>

#include "manifest/job_kind.h"

namespace kftrain::manifest {

// Return a commented starter job file of a kind: the common keys set, every
// other key the kind can express commented out with its default and a line of
// documentation.
std::string starter_job_file(const std::string& name, JobKind kind = JobKind::PyTorchJob);

// Return the job-file reference as a Markdown table: key, type, default, meaning.
std::string job_file_reference();

}  // namespace kftrain::manifest
