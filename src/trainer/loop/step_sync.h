#pragma once

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "trainer/comm/comm.h"
#include "trainer/loop/interval.h"

namespace kftrain::trainer {

// Keep each step's loss and correct predictions on the device until a sync point reads them
// all at once, so that a training step waits neither for the device nor for the other ranks.
class StepMetrics {
  public:
    // Record one step's mean loss and its batch's predictions without reading them.
    void add(const torch::Tensor& loss, const torch::Tensor& logits, const torch::Tensor& labels);
    // Record a step's seconds on this rank and the part it waited for the other ranks in the
    // gradients' all-reduce; the rest is its compute time.
    void add_step_time(double seconds, double waited) {
        m_compute_s += seconds - waited;
        m_last_step_s = seconds;
        m_last_wait_s = waited;
    }
    // Return the last step's seconds and its all-reduce wait, as add_step_time recorded them.
    double last_step_seconds() const { return m_last_step_s; }
    double last_wait_seconds() const { return m_last_wait_s; }
    // Return how many steps were recorded since the last take().
    std::size_t steps() const { return m_counts.size(); }
    // Read the steps recorded since the last take() (one copy from the device), sum them over
    // the ranks of comm (none with one rank) with this rank's stop flag and compute time (one
    // all-reduce) and start a new interval. Every rank must call it at the same step.
    IntervalSums take(comm::Comm* comm, bool stop);
    // Forget the steps recorded since the last take() without reading them (a benchmark's
    // steps, timed on one rank alone where take() would need every rank).
    void discard();

  private:
    std::vector<torch::Tensor> m_losses;
    std::vector<double> m_counts;
    torch::Tensor m_correct;
    double m_compute_s = 0;
    double m_last_step_s = 0;
    double m_last_wait_s = 0;
};

// Agree on a stop (SIGTERM) between sync points without a slow blocking collective per step:
// over Gloo, after a step each rank shares its stop flag in an all-reduce that runs while the
// next step computes, and reads the result after that step; through shared memory the ranks
// vote at collect(), on the calling thread, in microseconds. With one rank it reads its own
// flag.
class StopVote {
  public:
    explicit StopVote(comm::Comm* comm) : m_comm(comm) {}
    // Return whether a rank was asked to stop by the step before this one (by this one with
    // one rank or through shared memory), waiting for the vote still in flight; every rank
    // gets the same answer.
    bool collect();
    // Share this rank's stop flag for the next collect() (nothing to do with one rank).
    void launch();

  private:
    // Fill the flag with this rank's stop request and return it.
    torch::Tensor& own_flag();

    comm::Comm* m_comm;
    torch::Tensor m_flag;
    std::unique_ptr<comm::Comm::Pending> m_pending;
};

}  // namespace kftrain::trainer
