#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::trainer::comm {

// Say what a host group sums.
enum class HostType { f32, f64 };
// Point at count elements in a row: one of the pieces a buffer to sum is laid out in.
struct HostPiece {
    const void* data;
    std::size_t count;
};
// Say what an all-reduce leaves in every rank's buffer: the sum over ranks, or that sum divided
// by the number of ranks (gradients' mean, in the same pass as the sum instead of one more).
enum class ReduceOp { sum, mean };

// Sum buffers over ranks that share this host's memory, through one POSIX shared-memory
// segment instead of TCP on loopback (where every byte is copied through the kernel several
// times). A buffer goes in chunks of the slot size: each rank copies its chunk into its slot
// but for its own share, sums its share over the other slots and its own buffer into the
// result area, and copies the result back, with a barrier after the first two steps. A rank
// that dies is noticed within a fraction of a second (each rank holds a robust mutex in the
// segment for its life) and one that hangs at the deadline; either makes allreduce() throw,
// as Gloo does.
class HostGroup {
  public:
    // Create the segment for world ranks with slots of slot_bytes, as rank 0; the other ranks
    // open name(). Errors say why (no /dev/shm, not enough room in it).
    static util::Result<std::unique_ptr<HostGroup>> create(int world, std::size_t slot_bytes);
    // Open the segment rank 0 created, as rank of world; fails where this process does not
    // share rank 0's /dev/shm (another host, another pod).
    static util::Result<std::unique_ptr<HostGroup>> open(const std::string& name, int rank,
                                                         int world);
    ~HostGroup();
    HostGroup(const HostGroup&) = delete;
    HostGroup& operator=(const HostGroup&) = delete;

    // Return the segment's name: a slash, the creator's pid and a random token.
    const std::string& name() const;
    // Remove the name once every rank has opened the segment, so that nothing is left in
    // /dev/shm however the job ends; the memory stays until the last rank unmaps it. Rank 0's
    // group removes it too when dropped before this (a peer failed while joining).
    void unlink();
    // Sum (or average) count elements of type at data over all ranks, in place. Every rank
    // calls it with the same count, type and op, in the same order, from one thread. Throws
    // std::runtime_error naming the rank that exited, or when the others are not there within
    // timeout; the group is unusable afterwards.
    void allreduce(void* data, std::size_t count, HostType type, std::chrono::milliseconds timeout,
                   ReduceOp op = ReduceOp::sum);
    // The same, reading the elements from pieces laid end to end and leaving the result in
    // out (as many elements as the pieces have): no copy into one buffer first. A piece may
    // lie in out, at its own place there.
    void allreduce(const std::vector<HostPiece>& in, void* out, HostType type,
                   std::chrono::milliseconds timeout, ReduceOp op = ReduceOp::sum);

    struct Impl;

  private:
    explicit HostGroup(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

}  // namespace kftrain::trainer::comm
