#pragma once

#include <optional>
#include <string>

namespace kftrain::manifest {

// The Kubeflow resource a job file renders into.
enum class JobKind {
    PyTorchJob,  // kubeflow.org/v1, Training Operator v1 (one Master, N-1 Workers)
    TrainJob,    // trainer.kubeflow.org/v1alpha1, Kubeflow Trainer v2 (N nodes on a JobSet)
};

// Every kind, in the order messages and shell completion list them.
inline constexpr JobKind k_kinds[] = {JobKind::PyTorchJob, JobKind::TrainJob};

// The allowed kind names, for messages: "PyTorchJob or TrainJob".
inline constexpr const char* k_kind_choices = "PyTorchJob or TrainJob";

// Return the kind's name as the manifest's `kind` writes it.
const char* kind_name(JobKind kind);

// Return the kind's apiVersion: kubeflow.org/v1 or trainer.kubeflow.org/v1alpha1.
const char* kind_api_version(JobKind kind);

// Return the resource name kubectl takes, qualified by its group so that no
// other CRD of the same short name is meant: pytorchjobs.kubeflow.org,
// trainjobs.trainer.kubeflow.org.
const char* kind_resource(JobKind kind);

// Return the lower-case name kubectl prints in "kind/name": pytorchjob, trainjob.
const char* kind_short_name(JobKind kind);

// Parse a kind name, ignoring case (PyTorchJob, pytorchjob, TrainJob, trainjob).
std::optional<JobKind> parse_kind(const std::string& text);

}  // namespace kftrain::manifest
