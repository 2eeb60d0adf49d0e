#pragma once

#include <map>
#include <string>
#include <vector>

#include "manifest/framework.h"
#include "manifest/job_spec.h"

namespace kftrain::backend::local {

// One replica of a job: the Master or a Worker (PyTorchJob, XGBoostJob), a Worker (JAXJob) or
// a node (TrainJob), with the rank the operator gives it.
struct ReplicaRef {
    std::string type;  // Master or Worker; Node
    int index = 0;     // within its type
    int rank = 0;      // 0 for the Master, index + 1 for Workers (index without a Master)
    std::string name;  // master-0, worker-2; node-1
};

// Return the replicas of a job: the Master, then the Workers by index; or nodes 0..N-1.
std::vector<ReplicaRef> replica_refs(const manifest::JobSpec& spec);

// The ports a local job listens on, all on 127.0.0.1.
struct Ports {
    int master = 0;  // MASTER_PORT: the rendezvous, tracker or coordinator of the job
    int rdzv = 0;    // PET_RDZV_ENDPOINT's port, with an elasticPolicy; XGBoost's WORKER_PORT
    int tasks = 0;   // a TFJob's: the first of consecutive ports, one per replica of TF_CONFIG
};

// Return WORLD_SIZE as the Training Operator v1.9 computes it: replicas times
// nprocPerNode when that is a number, else replicas. For a TrainJob, nodes
// times the processes each runs (manifest::trainjob_procs_per_node).
int world_size(const manifest::JobSpec& spec);

// Return the variables the operator adds to one replica's container, with the job's
// rendezvous at 127.0.0.1 where the operator names a pod or Service:
// - PyTorchJob (Training Operator v1.9): PYTHONUNBUFFERED, MASTER_ADDR/PORT and
//   PET_MASTER_ADDR/PORT, WORLD_SIZE, RANK, PET_NPROC_PER_NODE ("auto" when the job file leaves
//   it unset, as the operator defaults it), PET_NODE_RANK and PET_NNODES, or with an
//   elasticPolicy the PET_RDZV_* variables instead. No LOCAL_RANK: the program's launcher sets
//   it for each process it spawns.
// - XGBoostJob: MASTER_ADDR/PORT, WORLD_SIZE (replicas), RANK, PYTHONUNBUFFERED=1, and with
//   Workers WORKER_PORT and WORKER_ADDRS (one 127.0.0.1 per Worker).
// - JAXJob: PYTHONUNBUFFERED=1, COORDINATOR_ADDRESS (Worker 0's host), COORDINATOR_PORT,
//   NUM_PROCESSES and PROCESS_ID.
// - TFJob: TF_CONFIG alone (none for a single replica), every replica in its cluster at
//   127.0.0.1 and a port of its own, in the order TF_CONFIG lists them.
// - TrainJob, by its runtime's framework: torch's PET_NNODES, PET_NPROC_PER_NODE (a number),
//   PET_NODE_RANK, PET_MASTER_ADDR/PORT; xgboost's DMLC_TRACKER_URI/PORT, DMLC_TASK_ID and
//   DMLC_NUM_WORKER (nodes times GPUs per node, at least 1); jax's JAX_NUM_PROCESSES,
//   JAX_PROCESS_ID and JAX_COORDINATOR_ADDRESS (host:port).
std::map<std::string, std::string> operator_environment(const manifest::JobSpec& spec, int rank,
                                                        const Ports& ports);

// Point the port variables operator_environment sets in env at ports, for a job of that
// framework: the supervisor takes ports that are free when the replicas start, which for a job
// that waited in a queue or was resumed is not when it was planned.
void set_ports(std::map<std::string, std::string>& env, manifest::JobKind kind,
               manifest::Framework framework, const Ports& ports);

// Point env at the job's local status server, as Trainer v2.2+ points every node at its own:
// KUBEFLOW_TRAINER_SERVER_URL, KUBEFLOW_TRAINER_SERVER_CA_CERT, KUBEFLOW_TRAINER_SERVER_TOKEN.
void set_status_server(std::map<std::string, std::string>& env, const std::string& url,
                       const std::string& ca_cert, const std::string& token_file);

}  // namespace kftrain::backend::local
