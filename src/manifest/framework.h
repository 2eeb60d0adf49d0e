#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "manifest/job_spec.h"

namespace kftrain::manifest {

// What a job's program trains with, as far as the operator's environment goes.
enum class Framework {
    torch,       // PyTorchJob, or a TrainJob on torch-distributed (PET_*)
    xgboost,     // XGBoostJob, or xgboost-distributed (DMLC_*)
    jax,         // JAXJob, or jax-distributed (JAX_*)
    tensorflow,  // TFJob (TF_CONFIG)
    mpi,         // deepspeed-distributed, mlx-distributed: an mpirun launcher over SSH
};

// Return the framework of a TrainJob runtime that Kubeflow Trainer v2.3 ships, by its name
// (torch-distributed, torchtune-*, jax-distributed, xgboost-distributed,
// deepspeed-distributed, mlx-distributed); nullopt for a runtime of another name.
std::optional<Framework> runtime_framework(const std::string& runtime);

// Return the framework a job's replicas get the environment of: the v1 kind's, or the
// TrainJob runtime's (torch for a runtime of another name, as kftrain --local treats it).
Framework job_framework(const JobSpec& spec);

// Return the replica types a Training Operator job has, with the count of each, in the order
// the operator's master role and kftrain's ranks follow: Master 1 and Worker replicas-1
// (PyTorchJob, XGBoostJob); Worker replicas (JAXJob, and a TFJob without roles); a TFJob's
// Chief, Worker, PS and Evaluator by its roles. A type with no replica is left out.
std::vector<std::pair<std::string, int>> replica_types(const JobSpec& spec);

// Return the variable a TFJob replica gets: TF_CONFIG's value, its cluster's every replica at
// address(type, index), its task this replica's (type lower-cased as the operator writes it),
// exactly as the operator marshals it (controller/tensorflow/tensorflow.go); empty when the
// job has a single replica, which the operator gives no TF_CONFIG.
std::string tf_config(const JobSpec& spec, const std::string& type, int index,
                      const std::function<std::string(const std::string&, int)>& address);

// Return the framework's name for messages and tables: PyTorch, XGBoost, JAX, TensorFlow or
// MPI.
const char* framework_name(Framework framework);

// Parse a framework_name (PyTorch, XGBoost, JAX, MPI); nullopt for another text.
std::optional<Framework> parse_framework(const std::string& name);

// An environment variable the job's env (and --env-from-shell) may not set, and why, for the
// message.
struct ReservedName {
    std::string name;
    std::string why;
};

// Return the variables reserved for a job of this kind and runtime: those its operator sets
// (TF_CONFIG only with more than one replica, XGBoost's WORKER_* only with Workers), then the
// status server's, which Trainer and kftrain --local set.
std::vector<ReservedName> reserved_env(const JobSpec& spec);

// Return every variable the operator (or runtime plugin) may set in a replica of a job of this
// kind and framework, for showing them apart from the job's own.
std::vector<std::string> operator_variables(JobKind kind, Framework framework);

// Return whether a program starts MPI's launcher: mpirun or mpiexec (mpirun.openmpi,
// mpiexec.hydra), by its file name.
bool is_mpi_launcher(const std::string& program);

}  // namespace kftrain::manifest
