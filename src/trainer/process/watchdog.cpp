#include "trainer/process/watchdog.h"

namespace kftrain::trainer::process {

Watchdog::Watchdog(std::chrono::milliseconds limit, std::function<void()> on_expiry) {
    m_thread = std::thread([this, limit, on_expiry = std::move(on_expiry)] {
        std::unique_lock<std::mutex> lock(m_mutex);
        if (!m_cv.wait_for(lock, limit, [this] { return m_cancelled; })) {
            on_expiry();
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
