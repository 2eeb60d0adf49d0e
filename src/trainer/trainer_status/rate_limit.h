#pragma once

#include <chrono>
#include <optional>

namespace kftrain::trainer::trainer_status {

// Allow something at most once per interval, the first time at once. Pure: the caller passes
// the time, so a test can pass its own.
class RateLimit {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;

    explicit RateLimit(std::chrono::milliseconds interval) : m_interval(interval) {}

    // Tell whether it may happen at now.
    bool ready(TimePoint now) const { return !m_last || now - *m_last >= m_interval; }
    // Record that it happened at now.
    void mark(TimePoint now) { m_last = now; }

  private:
    std::chrono::milliseconds m_interval;
    std::optional<TimePoint> m_last;
};

}  // namespace kftrain::trainer::trainer_status
