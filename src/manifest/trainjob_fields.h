#pragma once

#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::manifest {

// The environment variables Trainer v2's torch plugin sets on every node and
// refuses in a TrainJob's env.
inline constexpr const char* k_reserved_trainjob_env[] = {
    "PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"};

// Return the job-file keys a TrainJob has no place for (dotted paths, e.g.
// runPolicy.cleanPodPolicy); nprocPerNode is among them for its cpu and gpu values only.
std::vector<std::string> trainjob_unsupported_keys();

// Check that a TrainJob (Kubeflow Trainer v2.3) can express every key the job
// file sets: keys with no v2 place (elasticPolicy, runPolicy.cleanPodPolicy, ...)
// and env named like a reserved PET_* variable are refused, each named with why,
// all in one message, so nothing is dropped silently.
util::Status check_trainjob_fields(const JobSpec& spec);

}  // namespace kftrain::manifest
