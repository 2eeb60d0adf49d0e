#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "job/status.h"

namespace kftrain::backend::kube {

// Reading a Kubeflow Trainer v2 TrainJob (trainer.kubeflow.org/v1alpha1): pure functions of
// its JSON and of its pods, so the kubernetes backend shows it as it shows a PyTorchJob.

// Return the label selector of a TrainJob's pods: every step (initializers and nodes) of
// the JobSet of the same name that it owns.
std::string trainjob_pod_selector(const std::string& name);

// Read a TrainJob into a status without pods. The phase comes from its conditions: Failed
// and Complete (Succeeded) end it, Suspended holds it (after a resume the condition is
// False, so it is not Suspended, whatever kubectl's State column says). It has no Created
// or Running condition: those are inferred from jobsStatus (Running once a step's pods are
// all ready or one step has succeeded). Node counts come from jobsStatus, the wanted replicas
// and requests from spec.trainer.numNodes and resourcesPerNode, the progress from
// status.trainerStatus when the cluster fills it.
job::JobStatus trainjob_status_from(const nlohmann::json& trainjob);

// Complete a TrainJob's status once its pods are in status.replicas: Running when one of
// them runs or has succeeded, and the node counts (and wanted nodes, when the job does not
// say) counted from the pods.
void settle_trainjob_status(job::JobStatus& status);

}  // namespace kftrain::backend::kube
