#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "estimate/model.h"
#include "estimate/profile.h"

namespace kftrain::estimate {

// What the job file says that the estimate needs; the CLI fills it from the JobSpec.
struct JobFacts {
    std::string name;
    int replicas = 1;
    int procs_per_replica = 1;  // nprocPerNode
    double cpu_cores = 0;       // resources.cpu; 0: not set
    double memory_bytes = 0;    // resources.memory; 0: not set
    int gpus = 0;               // resources.gpus
    std::string model = "mnist-cnn";
    std::string dataset = "synthetic";
    int batch_size = 64;
    int epochs = 1;
    int64_t samples = 0;                    // 0: the whole data set
    bool checkpoints = false;               // trainer.checkpointDir set
    int64_t checkpoint_every = 0;           // trainer.checkpointEvery
    std::string grad_compression = "none";  // trainer.gradCompression
};

// The estimate's flags; unset ones fall back to the profile, the prices or a default.
struct PlanFlags {
    std::vector<int> workers;                      // --workers; empty: 1,2,4,8,16 and the job's
    std::string gpu;                               // --gpu
    std::optional<double> network_bytes_per_s;     // --network, between nodes
    std::optional<double> intra_node_bytes_per_s;  // --intra-node-network
    std::optional<double> latency_s;               // --latency
    std::optional<int> replicas_per_node;          // --replicas-per-node
    std::optional<double> startup_s;               // --overhead
    bool local = false;                            // --local: every replica on this machine
};

// One input of the model and where its value came from, printed under the table.
struct Assumption {
    std::string name;    // "compute per step"
    std::string value;   // "12.3ms"
    std::string source;  // "measured: profile.json (batch 64, 4 threads)"
};

// The model's input, resolved, with every assumption behind it.
struct Plan {
    EstimateInput input;
    Profile profile;                    // the measured one at the smallest world size
    std::optional<Profile> multi_rank;  // the measured one at the smallest world size > 1
    std::string device;                 // the GPU type, or "cpu"
    int gpus_per_replica = 0;
    int job_replicas = 1;
    std::string currency = "USD";  // the price catalog's
    std::vector<Assumption> assumptions;
};

// Default start-up overhead of a job on a cluster (scheduling, image pull, rendezvous).
constexpr double k_default_startup_s = 60;
// Default start-up overhead of a --local job (processes, libtorch, data loading).
constexpr double k_default_local_startup_s = 5;
// Default time processes take to connect (the store, then Gloo's mesh) at 2 or more.
constexpr double k_default_rendezvous_s = 0.25;
// Default latency of one ring hop.
constexpr double k_default_latency_s = 30e-6;
// Default bandwidth between the processes of one CPU machine (Gloo over loopback).
constexpr double k_default_cpu_intra_bytes_per_s = 2e9;
// Default bandwidth between the GPUs of one node without a catalog figure (PCIe).
constexpr double k_default_gpu_intra_bytes_per_s = 12e9;
// Default bandwidth between nodes without a flag or catalog figure.
constexpr double k_default_network_bytes_per_s = 10e9 / 8;

// Default replica sizes to compare.
const std::vector<int>& default_workers();

}  // namespace kftrain::estimate
