#pragma once

#include <functional>
#include <optional>
#include <string>

#include "trainer/startup/device.h"
#include "util/result.h"

namespace kftrain::trainer {

// Hold where this process sits in the job, read from the operator's environment.
struct DistEnv {
    std::string master_addr = "127.0.0.1";
    int master_port = 29500;
    int world_size = 1;
    int rank = 0;
    // LOCAL_RANK (it picks the CUDA device); the rank when it is unset and the master is a
    // loopback address, as every rank is then on this host.
    int local_rank = 0;
    // Processes this trainer must spawn itself (PET_NPROC_PER_NODE > 1, not yet spawned).
    int spawn_local = 1;
    // Local processes on this node, for the thread split: PET_NPROC_PER_NODE, or every rank
    // when MASTER_ADDR is a loopback address (all ranks share this host).
    int local_procs = 1;
    int node_rank = 0;
    std::string socket_ifname;
};

// Look up an environment variable; the default reads the real environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// Return a lookup reading the process environment.
EnvLookup process_env();

// Name of the variable marking processes spawned by a trainer for nproc-per-node.
constexpr const char* k_spawned_env = "KFTRAIN_TRAINER_SPAWNED";

// Find what libtorch offers for CUDA (probe_torch_cuda() in the program).
using TorchCudaProbe = std::function<TorchCuda()>;

// Tell whether addr names this host's loopback: localhost, 127.* or ::1.
bool is_loopback(const std::string& addr);

// Parse MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK, PET_* and GLOO_SOCKET_IFNAME.
// PET_* place the process (world = PET_NNODES * nproc, rank = PET_NODE_RANK * nproc + local
// rank) when a node runs several processes, and under Trainer v2, which sets PET_* but neither
// WORLD_SIZE nor RANK; otherwise WORLD_SIZE and RANK do.
// cuda is asked only for PET_NPROC_PER_NODE=gpu (one process per CUDA device); without it
// libtorch counts as a CPU build.
util::Result<DistEnv> parse_dist_env(const EnvLookup& env, const TorchCudaProbe& cuda = {});

}  // namespace kftrain::trainer
