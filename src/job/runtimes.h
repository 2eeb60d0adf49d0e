#pragma once

#include <string>

namespace kftrain::job {

// One training runtime a cluster offers TrainJobs (Kubeflow Trainer v2).
struct TrainingRuntime {
    std::string name;
    std::string kind;        // ClusterTrainingRuntime or TrainingRuntime
    std::string namespace_;  // a TrainingRuntime's; empty for a ClusterTrainingRuntime
    std::string framework;   // its label trainer.kubeflow.org/framework; empty when unlabelled
    int num_nodes = 1;       // spec.mlPolicy.numNodes (1 when unset, as Trainer defaults it)
    std::string created;     // ISO-8601 UTC
};

}  // namespace kftrain::job
