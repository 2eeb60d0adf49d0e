#include "trainer/loop/step_sync.h"

#include <vector>

#include "trainer/process/signals.h"

namespace kftrain::trainer {

void StepMetrics::add(const torch::Tensor& loss, const torch::Tensor& logits,
                      const torch::Tensor& labels) {
    torch::NoGradGuard no_grad;
    m_losses.push_back(loss.detach());
    m_counts.push_back(static_cast<double>(labels.size(0)));
    auto correct = logits.argmax(1).eq(labels).sum();
    m_correct = m_correct.defined() ? m_correct.add_(correct) : correct;
}

IntervalSums StepMetrics::take(comm::Comm* comm, bool stop) {
    torch::NoGradGuard no_grad;
    const std::size_t steps = m_losses.size();
    std::vector<double> losses;
    double correct = 0;
    if (steps > 0) {
        auto host = torch::cat({torch::stack(m_losses).to(torch::kFloat64),
                                m_correct.to(torch::kFloat64).view({1})})
                        .to(torch::kCPU)
                        .contiguous();
        const double* values = host.data_ptr<double>();
        losses.assign(values, values + steps);
        correct = values[steps];
    }
    const RankTime time{comm ? comm->rank() : 0, comm ? comm->world() : 1, m_compute_s};
    const auto values = pack_interval(losses, m_counts, correct, stop, time);
    const auto sums = comm ? comm->allreduce_sum(values) : values;
    discard();
    return unpack_interval(sums, steps, time.world);
}

void StepMetrics::discard() {
    m_losses.clear();
    m_counts.clear();
    m_correct = torch::Tensor();
    m_compute_s = 0;
}

torch::Tensor& StopVote::own_flag() {
    if (!m_flag.defined()) {
        m_flag = torch::zeros({1}, torch::kFloat64);
    }
    m_flag.fill_(process::stop_requested() ? 1.0 : 0.0);  // no vote is in flight with it
    return m_flag;
}

bool StopVote::collect() {
    if (m_comm == nullptr) {
        return process::stop_requested();
    }
    if (m_comm->backend() == comm::Backend::shm) {
        // The ranks have just met in the gradients' all-reduce: a vote through shared memory
        // now takes microseconds, less than handing it to another thread that then competes
        // with the next step for the cores.
        m_comm->allreduce(own_flag());
        return m_flag.item<double>() > 0;
    }
    if (!m_pending) {
        return false;
    }
    m_pending->wait();
    m_pending.reset();
    return m_flag.item<double>() > 0;
}

void StopVote::launch() {
    if (m_comm == nullptr || m_comm->backend() == comm::Backend::shm) {
        return;
    }
    m_pending = m_comm->allreduce_host_async(own_flag());
}

}  // namespace kftrain::trainer
