#pragma once

#include <string>
#include <vector>

#include "cli/kube/queries.h"
#include "util/result.h"

namespace kftrain::cli::kube {

// One training runtime a cluster offers TrainJobs (Kubeflow Trainer v2).
struct TrainingRuntime {
    std::string name;
    std::string kind;        // ClusterTrainingRuntime or TrainingRuntime
    std::string namespace_;  // a TrainingRuntime's; empty for a ClusterTrainingRuntime
    std::string framework;   // its label trainer.kubeflow.org/framework; empty when unlabelled
    int num_nodes = 1;       // spec.mlPolicy.numNodes (1 when unset, as Trainer defaults it)
    std::string created;     // ISO-8601 UTC
};

// Read the List `kubectl get clustertrainingruntimes...,trainingruntimes... -o json` prints:
// the ClusterTrainingRuntimes first, then the TrainingRuntimes, each by name. Text that is not
// a List is an error with exit code 4.
util::Result<std::vector<TrainingRuntime>> parse_runtimes(const std::string& list_text);

// Read the ClusterTrainingRuntimes and the namespace's TrainingRuntimes in one kubectl call.
// When Trainer v2 is not installed the error (exit code 4) says so, and says to use
// --kind PyTorchJob when the cluster serves PyTorchJobs.
util::Result<std::vector<TrainingRuntime>> list_runtimes(KubeQueries& queries);

}  // namespace kftrain::cli::kube
