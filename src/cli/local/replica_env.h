#pragma once

#include <map>
#include <string>
#include <vector>

#include "manifest/job_spec.h"

namespace kftrain::cli::local {

// One replica of a job: the Master or a Worker, with the rank the operator gives it.
struct ReplicaRef {
    std::string type;  // Master or Worker
    int index = 0;     // within its type
    int rank = 0;      // 0 for the Master, index + 1 for Workers
    std::string name;  // master-0, worker-2
};

// Return the replicas of a job: the Master, then the Workers by index.
std::vector<ReplicaRef> replica_refs(const manifest::JobSpec& spec);

// The ports a local job listens on, all on 127.0.0.1.
struct Ports {
    int master = 0;  // MASTER_PORT
    int rdzv = 0;    // PET_RDZV_ENDPOINT's port, with an elasticPolicy
};

// Return WORLD_SIZE as the Training Operator v1.9 computes it: replicas times
// nprocPerNode when that is a number, else replicas.
int world_size(const manifest::JobSpec& spec);

// Return the variables the Training Operator v1.9 adds to one replica's container, with the
// Master at 127.0.0.1: PYTHONUNBUFFERED, MASTER_ADDR/PORT and
// PET_MASTER_ADDR/PORT, WORLD_SIZE, RANK, PET_NPROC_PER_NODE ("auto" when the
// job file leaves it unset, as the operator defaults it), PET_NODE_RANK and
// PET_NNODES, or with an elasticPolicy the PET_RDZV_* variables instead. The
// operator sets no LOCAL_RANK: the trainer sets it for each process it spawns.
std::map<std::string, std::string> operator_environment(const manifest::JobSpec& spec, int rank,
                                                        const Ports& ports);

}  // namespace kftrain::cli::local
