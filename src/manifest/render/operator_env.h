#pragma once

#include "wire/status_server_env.h"

namespace kftrain::manifest {

// The variables the Training Operator (v1.9) sets in every container of a PyTorchJob's
// replicas, in the order its docs list them: appended after the job's own env, so a value the
// job file gave one of them would never reach the program. The last three only with an
// elasticPolicy. (It also sets PYTHONUNBUFFERED, which a job may set to the same effect.)
inline constexpr const char* k_pytorchjob_operator_env[] = {
    "MASTER_ADDR",       "MASTER_PORT",      "PET_MASTER_ADDR",
    "PET_MASTER_PORT",   "WORLD_SIZE",       "RANK",
    "PET_NNODES",        "PET_NODE_RANK",    "PET_NPROC_PER_NODE",
    "PET_RDZV_ENDPOINT", "PET_RDZV_BACKEND", "PET_MAX_RESTARTS",
};

// The variables Trainer v2's torch plugin sets on every node of a TrainJob, and refuses in
// its env.
inline constexpr const char* k_trainjob_operator_env[] = {
    "PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"};

// What the Training Operator sets in every container of an XGBoostJob (controller/xgboost/
// xgboost.go), after the job's env; the last two only with more than one replica.
inline constexpr const char* k_xgboostjob_operator_env[] = {
    "MASTER_PORT", "MASTER_ADDR", "WORLD_SIZE", "RANK", "WORKER_PORT", "WORKER_ADDRS"};

// What it sets in every container of a JAXJob (controller/jax/envvar.go).
inline constexpr const char* k_jaxjob_operator_env[] = {"COORDINATOR_ADDRESS", "COORDINATOR_PORT",
                                                        "NUM_PROCESSES", "PROCESS_ID"};

// What Trainer v2's runtime plugins set on the trainer's node: xgboost (refused in the job's
// env), jax (replaced) and mpi (refused; the launcher's).
inline constexpr const char* k_xgboost_runtime_env[] = {"DMLC_TRACKER_URI", "DMLC_TRACKER_PORT",
                                                        "DMLC_TASK_ID", "DMLC_NUM_WORKER"};
inline constexpr const char* k_jax_runtime_env[] = {"JAX_NUM_PROCESSES", "JAX_PROCESS_ID",
                                                    "JAX_COORDINATOR_ADDRESS"};
inline constexpr const char* k_mpi_runtime_env[] = {
    "OMPI_MCA_orte_default_hostfile", "OMPI_MCA_plm_rsh_args", "OMPI_MCA_orte_keep_fqdn_hostnames",
    "OMPI_MCA_orte_set_default_slots"};

// The status server's variables (wire/status_server_env.h): reserved, a job's env may not set
// them.
inline constexpr const char* k_status_server_env[] = {
    wire::k_status_server_url_env, wire::k_status_server_ca_env, wire::k_status_server_token_env};

}  // namespace kftrain::manifest
