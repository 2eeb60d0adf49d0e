#pragma once

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::manifest {

// Check what a job of a framework other than PyTorch needs and cannot say: XGBoostJob and
// JAXJob have no elasticPolicy or nprocPerNode; the xgboost and jax runtimes start one process
// per node (no nprocPerNode); the MPI runtimes (deepspeed-distributed, mlx-distributed) launch
// with mpirun, so the command must start with it; and none of them runs kftrain-trainer, a
// PyTorch program, so each needs a command of its own. The message names the key and the
// kind or runtime.
util::Status check_framework_fields(const JobSpec& spec);

}  // namespace kftrain::manifest
