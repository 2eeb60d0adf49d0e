#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "trainer/comm/host_group.h"

namespace kftrain::trainer::comm {

// Run a host group's all-reduces one after another on a thread of their own, in the order
// they were pushed, which is the order every rank pushes them in: the caller goes on
// computing (backward, the next step) while its buffers are summed.
class HostQueue {
  public:
    HostQueue(std::unique_ptr<HostGroup> group, std::chrono::milliseconds timeout);
    // Finish the sums already pushed, then stop the thread.
    ~HostQueue();
    HostQueue(const HostQueue&) = delete;
    HostQueue& operator=(const HostQueue&) = delete;

    // Queue summing (or averaging) the elements of type in pieces laid end to end over the
    // ranks into out, as HostGroup::allreduce() does (a piece may lie at its own place in out);
    // pieces and out must stay valid until the future is ready. The future throws what the
    // group threw (a peer that exited or hangs), and every later one then throws too.
    std::future<void> push(std::vector<HostPiece> in, void* out, HostType type,
                           ReduceOp op = ReduceOp::sum);
    // All-reduce on the calling thread once the ones pushed before are done: for one the
    // caller would only wait for, this spares the hand-over to the queue's thread and back
    // (two wake-ups, a good part of a small sum's time). Throws what the group throws. Call
    // it from the thread that pushes.
    void allreduce_here(const std::vector<HostPiece>& in, void* out, HostType type,
                        ReduceOp op = ReduceOp::sum);

  private:
    struct Job {
        std::vector<HostPiece> in;
        void* out;
        HostType type;
        ReduceOp op;
        std::promise<void> done;
    };
    void run();

    std::unique_ptr<HostGroup> m_group;
    std::chrono::milliseconds m_timeout;
    std::mutex m_mutex;
    std::condition_variable m_ready;  // a job was pushed, or stop
    std::condition_variable m_idle;   // the thread finished a job
    std::deque<Job> m_jobs;           // the front one runs on the thread until it is done
    bool m_stop = false;
    std::thread m_thread;  // last: started once the members above exist
};

}  // namespace kftrain::trainer::comm
