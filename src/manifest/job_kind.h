#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kftrain::manifest {

// The Kubeflow resource a job file renders into.
enum class JobKind {
    PyTorchJob,  // kubeflow.org/v1, Training Operator v1 (one Master, N-1 Workers)
    TrainJob,    // trainer.kubeflow.org/v1alpha1, Kubeflow Trainer v2 (N nodes on a JobSet)
    XGBoostJob,  // kubeflow.org/v1 (one Master, N-1 Workers)
    JAXJob,      // kubeflow.org/v1 (N Workers, Worker 0 the coordinator)
    TFJob,       // kubeflow.org/v1 (Chief, Workers, PS and an Evaluator, by the job file's roles)
};

// Every kind, in the order messages and shell completion list them.
inline constexpr JobKind k_kinds[] = {JobKind::PyTorchJob, JobKind::TrainJob, JobKind::TFJob,
                                      JobKind::XGBoostJob, JobKind::JAXJob};

// The allowed kind names, for messages.
inline constexpr const char* k_kind_choices = "PyTorchJob, TrainJob, TFJob, XGBoostJob or JAXJob";

// What a Training Operator v1 kind's controller does with its replicas (controller/<kind>/ and
// apis/<kind>_defaults.go of training-operator v1.9).
struct OperatorKind {
    const char* replica_specs;  // the spec's map of replica types: pytorchReplicaSpecs
    const char* container;      // the container the operator sets its env in: pytorch
    const char* port_name;      // the port the operator adds and addresses peers by
    int port;                   // its default number
    // The replica type that leads the job and decides its success (one replica of it), or
    // nullptr when every replica is of the worker type and Worker 0 leads. A TFJob's Chief is
    // optional: without one, Worker 0 leads.
    const char* master_type;
    const char* worker_type;
};

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

// Return whether the Training Operator v1 runs the kind (every kind but TrainJob).
bool is_operator_kind(JobKind kind);

// Return what the Training Operator does with a v1 kind's replicas; TrainJob has none of
// this (it is called only for v1 kinds and answers PyTorchJob's for it).
const OperatorKind& operator_kind(JobKind kind);

// Parse a kind name, ignoring case (PyTorchJob, pytorchjob, TrainJob, trainjob).
std::optional<JobKind> parse_kind(const std::string& text);

}  // namespace kftrain::manifest
