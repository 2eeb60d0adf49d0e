#pragma once

#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::manifest {

// Return the job-file keys a TrainJob has no place for (dotted paths, e.g.
// runPolicy.cleanPodPolicy); nprocPerNode is among them for its cpu and gpu values only.
std::vector<std::string> trainjob_unsupported_keys();

// Check that a TrainJob (Kubeflow Trainer v2.3) can express every key the job
// file sets: keys with no v2 place (elasticPolicy, runPolicy.cleanPodPolicy, ...)
// are refused, each named with why, all in one message, so nothing is dropped
// silently. (Env that Trainer sets itself is refused with the job's other env.)
util::Status check_trainjob_fields(const JobSpec& spec);

}  // namespace kftrain::manifest
