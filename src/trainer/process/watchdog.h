#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace kftrain::trainer::process {

// Call on_expiry from a background thread unless the watchdog is destroyed within limit.
// Used to bound calls (like connecting to peers) whose own timeouts can add up.
class Watchdog {
  public:
    Watchdog(std::chrono::milliseconds limit, std::function<void()> on_expiry);
    ~Watchdog();
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

  private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_cancelled = false;
    std::thread m_thread;
};

}  // namespace kftrain::trainer::process
