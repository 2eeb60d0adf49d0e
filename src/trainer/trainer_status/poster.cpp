#include "trainer/trainer_status/poster.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "util/text.h"

namespace kftrain::trainer::trainer_status {
namespace {

constexpr std::size_t k_max_message = 200;

double seconds(std::chrono::milliseconds d) {
    return std::chrono::duration<double>(d).count();
}

// Return what an error answer says: the message of a Kubernetes Status, else its first line.
std::string answer_message(const std::string& body) {
    const auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_object() && j.contains("message") && j["message"].is_string()) {
        return j["message"].get<std::string>();
    }
    const std::string line = util::first_line(body);
    return line.empty() ? "no message" : line.substr(0, k_max_message);
}

}  // namespace

StatusPoster::StatusPoster(ServerConfig config, Warn warn, PosterOptions options, Clock clock)
    : m_config(std::move(config)),
      m_warn(std::move(warn)),
      m_options(options),
      m_clock(std::move(clock)),
      m_post_limit(options.min_interval),
      m_warn_limit(options.warn_interval) {
    http::init_curl_once();
    m_thread = std::thread([this] { send_loop(); });
}

StatusPoster::~StatusPoster() {
    close();
}

// Give status to the sending thread; m_mutex is held.
void StatusPoster::hand_over(TrainerStatus status) {
    m_ready = std::move(status);
    m_held.reset();
    m_stats.handed_over += 1;
    m_cv.notify_all();
}

void StatusPoster::update(TrainerStatus status) {
    std::lock_guard lock(m_mutex);
    if (m_finished || m_closing) {
        return;
    }
    const auto now = m_clock();
    if (!m_post_limit.ready(now)) {
        m_held = std::move(status);
        return;
    }
    m_post_limit.mark(now);
    hand_over(std::move(status));
}

void StatusPoster::finish(TrainerStatus status) {
    std::lock_guard lock(m_mutex);
    if (m_finished || m_closing) {
        return;
    }
    m_finished = true;
    hand_over(std::move(status));
}

bool StatusPoster::idle() const {
    std::lock_guard lock(m_mutex);
    return !m_ready && !m_sending;
}

PosterStats StatusPoster::stats() const {
    std::lock_guard lock(m_mutex);
    return m_stats;
}

util::Status StatusPoster::post(http::HttpClient& client, const TrainerStatus& status) {
    auto token = read_token(m_config.token_file);
    if (!token.ok()) {
        return util::error(token.error());
    }
    http::RequestAuth auth;
    auth.bearer_token = *token;
    auth.ca_file = m_config.ca_cert;
    const auto answer = client.post_json(m_config.url, trainer_status_body(status), auth);
    if (answer.status >= 200 && answer.status < 300) {
        return util::ok_status();
    }
    if (answer.status == 0) {
        return util::error(answer.transport_error);
    }
    return util::error(fmt::format("HTTP {}: {}", answer.status, answer_message(answer.body)));
}

// Count a post's outcome; return the warning to print, if one is due. m_mutex is held.
std::optional<std::string> StatusPoster::record(const util::Status& outcome) {
    if (outcome.ok()) {
        m_stats.posts += 1;
        return std::nullopt;
    }
    m_stats.failures += 1;
    m_unreported_failures += 1;
    const auto now = m_clock();
    if (m_abort || !m_warn_limit.ready(now)) {
        return std::nullopt;
    }
    const bool first = !m_stats.warnings;
    m_warn_limit.mark(now);
    m_stats.warnings += 1;
    const int failed = std::exchange(m_unreported_failures, 0);
    if (first) {
        return fmt::format(
            "trainerStatus not posted to {}: {}; training goes on, and further failures are "
            "reported at most once every {:g}s",
            m_config.url, outcome.error(), seconds(m_options.warn_interval));
    }
    return fmt::format("trainerStatus still not posted to {}: {} more post{} failed, the last: {}",
                       m_config.url, failed, failed == 1 ? "" : "s", outcome.error());
}

void StatusPoster::send_loop() {
    http::HttpClient client(m_options.request_timeout, &m_abort);
    std::unique_lock lock(m_mutex);
    while (true) {
        m_cv.wait(lock, [&] { return m_ready.has_value() || m_closing; });
        if (!m_ready || m_abort) {
            break;
        }
        const TrainerStatus status = std::move(*m_ready);
        m_ready.reset();
        m_sending = true;
        lock.unlock();
        const auto outcome = post(client, status);
        lock.lock();
        if (const auto warning = record(outcome); warning && m_warn) {
            lock.unlock();  // the warning goes through the progress log: never under our lock
            m_warn(*warning);
            lock.lock();
        }
        m_sending = false;
        m_cv.notify_all();
    }
    m_done = true;
    m_cv.notify_all();
}

void StatusPoster::close() {
    if (!m_thread.joinable()) {
        return;
    }
    bool cut_short = false;
    {
        std::unique_lock lock(m_mutex);
        if (m_held && !m_finished) {
            hand_over(std::move(*m_held));  // the newest status kept back: the last post
        }
        m_closing = true;
        m_cv.notify_all();
        if (!m_cv.wait_for(lock, m_options.flush_budget, [&] { return m_done; })) {
            cut_short = true;
            m_abort = true;
            m_cv.notify_all();
        }
    }
    m_thread.join();
    if (!cut_short) {
        return;
    }
    {
        std::lock_guard lock(m_mutex);
        m_stats.flush_cut_short = true;
        m_stats.warnings += 1;
    }
    if (m_warn) {
        m_warn(
            fmt::format("trainerStatus: the last post to {} was not sent within the {:g}s "
                        "limit at exit",
                        m_config.url, seconds(m_options.flush_budget)));
    }
}

}  // namespace kftrain::trainer::trainer_status
