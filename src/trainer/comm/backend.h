#pragma once

#include <functional>
#include <string>

#include "util/result.h"

namespace kftrain::trainer::comm {

// Say what carries the gradient all-reduces of a job: Gloo over TCP, NCCL, or shared memory
// between ranks on one host (the other collectives then stay on Gloo).
enum class Backend { gloo, nccl, shm };

// Hold what this build and machine offer for NCCL, found by probe_cuda().
struct CudaFacts {
    // The trainer was built with the CUDA toolkit's nccl.h and libnccl.
    bool nccl_built = false;
    // Visible CUDA devices (0 when counting failed).
    int devices = 0;
    // The CUDA error text when counting the devices failed, empty otherwise.
    std::string error;
};

// Return "gloo", "nccl" or "shm".
const char* backend_name(Backend backend);

// Resolve --backend (auto|gloo|nccl) to gloo or nccl for one of local_procs processes on this
// host: auto means NCCL only for tensors on CUDA in a build with NCCL where each process has a
// device of its own (NCCL refuses two ranks on one device; Gloo then carries them), and a gloo
// from auto lets the session try shared memory first. probe is called only when the answer
// depends on it. Errors name the flag and value.
util::Result<Backend> choose_backend(const std::string& flag, bool tensors_on_cuda, int local_procs,
                                     const std::function<CudaFacts()>& probe);

}  // namespace kftrain::trainer::comm
