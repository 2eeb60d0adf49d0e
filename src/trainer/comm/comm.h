#pragma once

#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <vector>

#include "trainer/comm/backend.h"
#include "trainer/comm/host_group.h"
#include "trainer/startup/env.h"
#include "util/result.h"

namespace kftrain::trainer::comm {

// The shared-memory group's slot per rank (each gradient bucket goes through in chunks of
// it), smaller where many ranks would make the segment larger than the most it may take.
constexpr std::size_t k_host_slot_bytes = std::size_t{1} << 20;
constexpr std::size_t k_host_segment_max_bytes = std::size_t{64} << 20;

// Connect the ranks of one job: a TCPStore at MASTER_ADDR:MASTER_PORT served by rank 0 and a
// Gloo process group, plus an NCCL communicator after use_nccl(). Collectives throw
// std::exception when a peer fails or times out.
class Comm {
  public:
    // Connect to every peer, waiting at most timeout for them to arrive.
    static util::Result<std::unique_ptr<Comm>> connect(const DistEnv& env,
                                                       std::chrono::milliseconds timeout);
    ~Comm();

    // Carry broadcast() and allreduce_async() over NCCL from now on, on CUDA device
    // local_rank % devices; every rank must call it. The scalar sums, the barrier and
    // broadcast_bytes stay on Gloo: they are small, and Gloo carries NCCL's id.
    util::Status use_nccl(int local_rank);
    // Carry allreduce_async() through a shared-memory segment from now on where every rank
    // can open the one rank 0 creates (all on this host, in one pod), and return whether they
    // could; every rank must call it. The rest stays on Gloo. Fails, on rank 0 only, when rank
    // 0 cannot create the segment (no room in /dev/shm); Gloo then carries everything.
    util::Result<bool> use_shared_memory();
    // Return the backend of allreduce_async() (and of broadcast() for NCCL).
    Backend backend() const;

    int rank() const { return m_rank; }
    int world() const { return m_world; }
    // Overwrite tensors with rank 0's values.
    void broadcast(std::vector<torch::Tensor>& tensors);
    // Sum a few numbers over all ranks.
    std::vector<double> allreduce_sum(const std::vector<double>& values);
    // Start summing (or averaging) a flat tensor over all ranks in place; wait() on the handle
    // finishes it. Through shared memory the mean is divided in the sum's own pass.
    class Pending;
    std::unique_ptr<Pending> allreduce_async(torch::Tensor& flat, ReduceOp op = ReduceOp::sum);
    // The same for parts laid end to end, the result left in flat (as many elements as the
    // parts): through shared memory read straight from the parts, else each part copied to
    // its place in flat first (none that lies there already) and flat summed in place.
    std::unique_ptr<Pending> allreduce_async(const std::vector<torch::Tensor>& parts,
                                             torch::Tensor& flat, ReduceOp op = ReduceOp::sum);
    // The same, returning when done: through shared memory on this thread, after the
    // all-reduces started before (no hand-over to the queue's thread and back).
    void allreduce(torch::Tensor& flat, ReduceOp op = ReduceOp::sum);
    void allreduce(const std::vector<torch::Tensor>& parts, torch::Tensor& flat,
                   ReduceOp op = ReduceOp::sum);
    // Start summing a small host tensor in place: through shared memory where the gradients
    // go that way, else over Gloo whatever the backend.
    std::unique_ptr<Pending> allreduce_host_async(torch::Tensor& host);
    // Return whether allreduce_async() carries tensors of type (Gloo in libtorch 1.13 has
    // no bfloat16, shared memory only float and double); every rank must call it with the
    // same type.
    bool carries(torch::ScalarType type);
    // Wait until every rank gets here.
    void barrier();
    // Give every rank rank 0's bytes.
    std::string broadcast_bytes(const std::string& bytes);

    struct Impl;

  private:
    Comm(std::unique_ptr<Impl> impl, int rank, int world);
    std::unique_ptr<Impl> m_impl;
    int m_rank;
    int m_world;
};

// Hold an all-reduce in flight.
class Comm::Pending {
  public:
    virtual ~Pending() = default;
    // Block until the all-reduce is done; throw when it failed or timed out.
    virtual void wait() = 0;
};

}  // namespace kftrain::trainer::comm
