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

// The status server's variables (wire/status_server_env.h): reserved, a job's env may not set
// them.
inline constexpr const char* k_status_server_env[] = {
    wire::k_status_server_url_env, wire::k_status_server_ca_env, wire::k_status_server_token_env};

}  // namespace kftrain::manifest
