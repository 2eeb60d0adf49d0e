#pragma once

#include <string>

#include "manifest/job_spec.h"
#include "manifest/k8s/rules.h"
#include "util/result.h"

namespace kftrain::manifest {

// Check the rules the Training Operator's webhook and Kubernetes enforce, so a
// job that passes here is not rejected after it was submitted.
util::Status validate_job(const JobSpec& spec);

}  // namespace kftrain::manifest
