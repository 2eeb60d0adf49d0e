#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace kftrain::trainer::process {

// Call on_expiry from a background thread unless the watchdog is destroyed within limit, and
// on_stop as soon as SIGTERM or SIGINT arrives (stop_requested(), looked at every
// k_stop_poll) while it waits. Used to bound calls (like connecting to peers) whose own
// timeouts can add up and which no signal interrupts: Kubernetes sends SIGTERM and, after its
// grace period, SIGKILL.
class Watchdog {
  public:
    static constexpr std::chrono::milliseconds k_stop_poll{50};

    Watchdog(std::chrono::milliseconds limit, std::function<void()> on_expiry,
             std::function<void()> on_stop = {});
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
