#pragma once

#include <string>
#include <vector>

#include "backend/kube/queries.h"
#include "job/runtimes.h"
#include "util/result.h"

namespace kftrain::backend::kube {

using job::TrainingRuntime;

// Read the List `kubectl get clustertrainingruntimes...,trainingruntimes... -o json` prints:
// the ClusterTrainingRuntimes first, then the TrainingRuntimes, each by name. Text that is not
// a List is an error with exit code 4.
util::Result<std::vector<TrainingRuntime>> parse_runtimes(const std::string& list_text);

// Read the ClusterTrainingRuntimes and the namespace's TrainingRuntimes in one kubectl call.
// When Trainer v2 is not installed the error (exit code 4) says so, and says to use
// --kind PyTorchJob when the cluster serves PyTorchJobs.
util::Result<std::vector<TrainingRuntime>> list_runtimes(KubeQueries& queries);

}  // namespace kftrain::backend::kube
