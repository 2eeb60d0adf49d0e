#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "trainer/loop/progress.h"
#include "trainer/startup/env.h"
#include "trainer/trainer_status/event_status.h"
#include "trainer/trainer_status/poster.h"

namespace kftrain::trainer::trainer_status {

// Turn rank 0's progress events into trainerStatus posts: every start, progress and eval
// event updates the status (posted at most once per interval), finish posts the last one at
// 100%. Without a poster it does nothing.
class StatusReporter {
  public:
    using WallClock = std::function<std::chrono::system_clock::time_point()>;

    explicit StatusReporter(std::unique_ptr<StatusPoster> poster = nullptr,
                            WallClock wall = std::chrono::system_clock::now);
    // Send the last post (within the poster's flush budget) before anything is destroyed.
    ~StatusReporter();
    StatusReporter(const StatusReporter&) = delete;
    StatusReporter& operator=(const StatusReporter&) = delete;

    // Take one progress event; safe from any thread, never blocks on the network.
    void on_event(const std::string& event, const Fields& fields);
    // Tell whether posts are on.
    bool active() const { return m_poster != nullptr; }

  private:
    std::unique_ptr<StatusPoster> m_poster;
    WallClock m_wall;
    std::mutex m_mutex;
    EventStatus m_state;
};

// Return the reporter the environment asks for: posting on rank 0 when
// KUBEFLOW_TRAINER_SERVER_URL, _CA_CERT and _TOKEN are set, else inactive. A half-set or
// non-https configuration is named in one warning and leaves posts off.
std::unique_ptr<StatusReporter> make_status_reporter(
    int rank, const EnvLookup& env, const std::function<void(const std::string&)>& warn);

}  // namespace kftrain::trainer::trainer_status
