#include "trainer/process/watchdog.h"

#include <algorithm>

#include "trainer/process/signals.h"

namespace kftrain::trainer::process {

Watchdog::Watchdog(std::chrono::milliseconds limit, std::function<void()> on_expiry,
                   std::function<void()> on_stop) {
    m_thread =
        std::thread([this, limit, on_expiry = std::move(on_expiry), on_stop = std::move(on_stop)] {
            const auto deadline = std::chrono::steady_clock::now() + limit;
            std::unique_lock<std::mutex> lock(m_mutex);
            while (!m_cancelled) {
                const auto now = std::chrono::steady_clock::now();
                if (now >= deadline) {
                    on_expiry();
                    return;
                }
                if (on_stop && stop_requested()) {
                    on_stop();
                    return;
                }
                // A signal handler cannot notify the condition variable: look at the flag often.
                const auto wait = on_stop ? std::min<std::chrono::steady_clock::duration>(
                                                deadline - now, k_stop_poll)
                                          : deadline - now;
                m_cv.wait_for(lock, wait, [this] { return m_cancelled; });
            }
        });
}

Watchdog::~Watchdog() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_cancelled = true;
    }
    m_cv.notify_all();
    m_thread.join();
}

}  // namespace kftrain::trainer::process
