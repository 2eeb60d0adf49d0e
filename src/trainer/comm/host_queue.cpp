#include "trainer/comm/host_queue.h"

#include <exception>
#include <utility>

namespace kftrain::trainer::comm {

HostQueue::HostQueue(std::unique_ptr<HostGroup> group, std::chrono::milliseconds timeout)
    : m_group(std::move(group)), m_timeout(timeout), m_thread([this] { run(); }) {}

HostQueue::~HostQueue() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_ready.notify_one();
    m_thread.join();
}

std::future<void> HostQueue::push(std::vector<HostPiece> in, void* out, HostType type,
                                  ReduceOp op) {
    std::promise<void> done;
    auto future = done.get_future();
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_jobs.push_back(Job{std::move(in), out, type, op, std::move(done)});
    }
    m_ready.notify_one();
    return future;
}

void HostQueue::allreduce_here(const std::vector<HostPiece>& in, void* out, HostType type,
                               ReduceOp op) {
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_idle.wait(lock, [this] { return m_jobs.empty(); });
    }
    // Nothing is queued or running, and only this thread pushes: the group is ours.
    m_group->allreduce(in, out, type, m_timeout, op);
}

void HostQueue::run() {
    while (true) {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_ready.wait(lock, [this] { return m_stop || !m_jobs.empty(); });
        if (m_jobs.empty()) {
            return;
        }
        // The job stays queued while it runs, so that an empty queue means idle; push()
        // appends behind it, which leaves a reference to the front valid.
        Job& job = m_jobs.front();
        lock.unlock();
        try {
            m_group->allreduce(job.in, job.out, job.type, m_timeout, job.op);
            job.done.set_value();
        } catch (...) {
            job.done.set_exception(std::current_exception());
        }
        lock.lock();
        m_jobs.pop_front();
        lock.unlock();
        m_idle.notify_all();
    }
}

}  // namespace kftrain::trainer::comm
