#pragma once

#include <map>
#include <string>
#include <vector>

#include "manifest/job_spec.h"

namespace kftrain::cli::local {

// One replica of a job: the Master or a Worker (PyTorchJob) or a node (TrainJob), with the
// rank the operator gives it.
struct ReplicaRef {
    std::string type;  // Master or Worker; Node
    int index = 0;     // within its type
    int rank = 0;      // 0 for the Master, index + 1 for Workers; a node's index
    std::string name;  // master-0, worker-2; node-1
};

// Return the replicas of a job: the Master, then the Workers by index; or nodes 0..N-1.
std::vector<ReplicaRef> replica_refs(const manifest::JobSpec& spec);

// The ports a local job listens on, all on 127.0.0.1.
struct Ports {
    int master = 0;  // MASTER_PORT
    int rdzv = 0;    // PET_RDZV_ENDPOINT's port, with an elasticPolicy
};

// Return WORLD_SIZE as the Training Operator v1.9 computes it: replicas times
// nprocPerNode when that is a number, else replicas. For a TrainJob, nodes
// times the processes each runs (manifest::trainjob_procs_per_node).
int world_size(const manifest::JobSpec& spec);

// Return the variables the Training Operator v1.9 adds to one replica's container, with the
// Master at 127.0.0.1: PYTHONUNBUFFERED, MASTER_ADDR/PORT and
// PET_MASTER_ADDR/PORT, WORLD_SIZE, RANK, PET_NPROC_PER_NODE ("auto" when the
// job file leaves it unset, as the operator defaults it), PET_NODE_RANK and
// PET_NNODES, or with an elasticPolicy the PET_RDZV_* variables instead. The
// operator sets no LOCAL_RANK: the trainer sets it for each process it spawns.
// For a TrainJob, return only what Trainer v2 gives a node: PET_NNODES,
// PET_NPROC_PER_NODE (resolved to a number), PET_NODE_RANK, PET_MASTER_ADDR and
// PET_MASTER_PORT; no RANK, WORLD_SIZE or MASTER_ADDR.
std::map<std::string, std::string> operator_environment(const manifest::JobSpec& spec, int rank,
                                                        const Ports& ports);

// Point the port variables operator_environment sets in env at ports: a TrainJob node's
// PET_MASTER_PORT; a PyTorchJob replica's MASTER_PORT, PET_MASTER_PORT and, elastic,
// PET_RDZV_ENDPOINT. The supervisor takes ports that are free when the replicas start, which
// for a job that waited in a queue or was resumed is not when it was planned.
void set_ports(std::map<std::string, std::string>& env, bool trainjob, const Ports& ports);

// Point env at the job's local status server, as Trainer v2.2+ points every node at its own:
// KUBEFLOW_TRAINER_SERVER_URL, KUBEFLOW_TRAINER_SERVER_CA_CERT, KUBEFLOW_TRAINER_SERVER_TOKEN.
void set_status_server(std::map<std::string, std::string>& env, const std::string& url,
                       const std::string& ca_cert, const std::string& token_file);

}  // namespace kftrain::cli::local
