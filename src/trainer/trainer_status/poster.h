#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "trainer/http/client.h"
#include "trainer/trainer_status/config.h"
#include "trainer/trainer_status/payload.h"
#include "trainer/trainer_status/rate_limit.h"

namespace kftrain::trainer::trainer_status {

// Tune the poster: how often it posts and warns, and how long it may wait.
struct PosterOptions {
    // At most one post per interval (the controller asks for 5 s); the last post is exempt.
    std::chrono::milliseconds min_interval{5000};
    // After the first failure's warning, at most one warning per interval.
    std::chrono::milliseconds warn_interval{60000};
    // Bound on connecting and on a whole post.
    std::chrono::milliseconds request_timeout{5000};
    // How long close() waits for the last post before abandoning it.
    std::chrono::milliseconds flush_budget{5000};
};

// Show what the poster did, for tests and diagnostics.
struct PosterStats {
    int handed_over = 0;  // statuses given to the sending thread
    int posts = 0;        // posts the server accepted (2xx)
    int failures = 0;     // posts that failed, whatever the cause
    int warnings = 0;
    bool flush_cut_short = false;
};

// Post trainerStatus to Kubeflow Trainer's controller from a background thread: update() and
// finish() never block; failures are warned about once, then at most once per warn_interval;
// nothing it does can fail training.
class StatusPoster {
  public:
    using Clock = std::function<std::chrono::steady_clock::time_point()>;
    using Warn = std::function<void(const std::string&)>;

    StatusPoster(ServerConfig config, Warn warn, PosterOptions options = {},
                 Clock clock = std::chrono::steady_clock::now);
    ~StatusPoster();
    StatusPoster(const StatusPoster&) = delete;
    StatusPoster& operator=(const StatusPoster&) = delete;

    // Post status when min_interval has passed since the last post, else keep it for the
    // last post; a newer status replaces one not yet sent.
    void update(TrainerStatus status);
    // Post status as the last post, whatever the interval; later updates are ignored.
    void finish(TrainerStatus status);
    // Send the newest status not yet posted within the flush budget, then stop; safe to repeat.
    void close();
    // Tell whether nothing is waiting for the sending thread or being sent.
    bool idle() const;
    // Return a snapshot of the bookkeeping.
    PosterStats stats() const;

  private:
    void hand_over(TrainerStatus status);
    void send_loop();
    util::Status post(http::HttpClient& client, const TrainerStatus& status);
    std::optional<std::string> record(const util::Status& outcome);

    ServerConfig m_config;
    Warn m_warn;
    PosterOptions m_options;
    Clock m_clock;
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::optional<TrainerStatus> m_ready;  // for the sending thread
    std::optional<TrainerStatus> m_held;   // newest status kept back by the rate limit
    RateLimit m_post_limit;
    RateLimit m_warn_limit;
    int m_unreported_failures = 0;
    bool m_sending = false;
    bool m_finished = false;
    bool m_closing = false;
    bool m_done = false;
    PosterStats m_stats;
    std::atomic<bool> m_abort{false};
    std::thread m_thread;
};

}  // namespace kftrain::trainer::trainer_status
