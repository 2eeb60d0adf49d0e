#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "manifest/job_kind.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// The merge patches (`kubectl patch --type merge -p BODY`) of suspend, resume and scale,
// built from the job as kubectl printed it: pure.

// Return the body that suspends (or resumes) a job of this kind: runPolicy.suspend for a
// PyTorchJob, spec.suspend for a TrainJob.
std::string suspend_patch(manifest::JobKind kind, bool suspend);

// Return the body that sets an elastic PyTorchJob's Worker replicas to workers. Exit 2, the
// job unchanged: a TrainJob (Kubeflow Trainer cannot scale yet), a job without elasticPolicy
// or Workers, or workers outside elasticPolicy minReplicas..maxReplicas.
util::Result<std::string> scale_patch(const nlohmann::json& job, int workers);

// Return the merge patch that sets a Kueue Workload's spec.active: false evicts it and keeps it
// from admission (how a queued job is suspended), true lets it queue again.
std::string workload_active_patch(bool active);

}  // namespace kftrain::backend::kube
