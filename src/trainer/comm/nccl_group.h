#pragma once

// NCCL collectives on raw memory. No torch and no CUDA headers here, so every other file
// compiles where the CUDA toolkit is absent. Two files implement this header, named as
// ninja names its subprocess-posix.cc: the build compiles nccl_group.cpp when it found NCCL
// and nccl_group-none.cpp (no devices, every call an error) otherwise.

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "trainer/comm/backend.h"
#include "util/result.h"

namespace kftrain::trainer::comm {

// Name the element types NCCL carries for the trainer's tensors.
enum class NcclType { f32, f64, f16, bf16, i32, i64, u8 };

// Tell whether NCCL is built in and how many CUDA devices this process sees.
CudaFacts probe_cuda();

// One NCCL communicator of a job on one CUDA device, with its own stream. Every wait is
// bounded: on a timeout or an asynchronous NCCL error the communicator is aborted, so a
// dead or hung peer gives an error instead of a hang.
class NcclGroup {
  public:
    // Hold one collective in flight.
    class Op;
    // Make the id (its bytes) that rank 0 gives every rank before connect().
    static util::Result<std::string> make_id();
    // Join the communicator of id as rank of world on device local_rank % devices, waiting
    // at most timeout for the peers.
    static util::Result<std::unique_ptr<NcclGroup>> connect(const std::string& id, int rank,
                                                            int world, int local_rank,
                                                            std::chrono::milliseconds timeout);
    ~NcclGroup();
    NcclGroup(const NcclGroup&) = delete;
    NcclGroup& operator=(const NcclGroup&) = delete;

    // Start summing count elements at data over all ranks, in place. Host memory
    // (on_device false) is staged through device memory; device memory is used directly.
    util::Result<std::unique_ptr<Op>> allreduce_sum(void* data, std::size_t count, NcclType type,
                                                    bool on_device);
    // Start overwriting count elements at data with rank 0's.
    util::Result<std::unique_ptr<Op>> broadcast(void* data, std::size_t count, NcclType type,
                                                bool on_device);
    // Return the CUDA device this rank uses.
    int device() const;

    struct Impl;

  private:
    explicit NcclGroup(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

class NcclGroup::Op {
  public:
    virtual ~Op() = default;
    // Block until the collective is done (host memory holds the result), at most the group's
    // timeout; on a timeout or a NCCL error abort the communicator and return the error.
    virtual util::Status wait() = 0;
};

}  // namespace kftrain::trainer::comm
