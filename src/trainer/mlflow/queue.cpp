#include "trainer/mlflow/queue.h"

namespace kftrain::trainer::mlflow {

void TrackQueue::push_params(const std::map<std::string, std::string>& params) {
    {
        std::lock_guard lock(m_mutex);
        if (m_closed) {
            return;
        }
        for (const auto& [key, value] : params) {
            m_pending.params[key] = value;
        }
    }
    m_cv.notify_one();
}

void TrackQueue::push_metrics(const std::vector<MetricPoint>& metrics) {
    {
        std::lock_guard lock(m_mutex);
        if (m_closed) {
            return;
        }
        if (m_pending.metrics.size() + metrics.size() > m_max_metrics) {
            m_dropped += static_cast<int64_t>(metrics.size());
            return;
        }
        m_pending.metrics.insert(m_pending.metrics.end(), metrics.begin(), metrics.end());
    }
    m_cv.notify_one();
}

void TrackQueue::push_status(const std::string& status, int64_t time_ms) {
    {
        std::lock_guard lock(m_mutex);
        if (m_closed) {
            return;
        }
        m_pending.status = status;
        m_pending.status_time_ms = time_ms;
    }
    m_cv.notify_one();
}

TrackEvents TrackQueue::take(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(m_mutex);
    m_cv.wait_until(lock, deadline, [&] { return m_closed || !m_pending.empty(); });
    TrackEvents out = std::move(m_pending);
    m_pending = TrackEvents{};
    return out;
}

void TrackQueue::close() {
    {
        std::lock_guard lock(m_mutex);
        m_closed = true;
    }
    m_cv.notify_all();
}

bool TrackQueue::closed() const {
    std::lock_guard lock(m_mutex);
    return m_closed;
}

void TrackQueue::clear() {
    std::lock_guard lock(m_mutex);
    m_pending = TrackEvents{};
}

int64_t TrackQueue::dropped() const {
    std::lock_guard lock(m_mutex);
    return m_dropped;
}

}  // namespace kftrain::trainer::mlflow
