#pragma once

#include <string>

#include "manifest/job_spec.h"
#include "manifest/k8s/rules.h"
#include "util/result.h"

namespace kftrain::manifest {

// Check the rules the Training Operator's webhook and Kubernetes enforce, so a
// job that passes here is not rejected after it was submitted.
util::Status validate_job(const JobSpec& spec);

// Return the longest host name the job's replicas get: the operator's Service of each replica
// (<name>-<type>-<index>), or a TrainJob's node pod host (<name>-node-0-<index>) and an MPI
// launcher's. It must be a DNS-1035 label: at most 63 characters.
std::string longest_host_name(const JobSpec& spec);

}  // namespace kftrain::manifest
