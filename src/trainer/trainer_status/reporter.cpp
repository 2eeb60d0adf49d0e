#include "trainer/trainer_status/reporter.h"

#include "wire/progress_events.h"

namespace kftrain::trainer::trainer_status {

StatusReporter::StatusReporter(std::unique_ptr<StatusPoster> poster, WallClock wall)
    : m_poster(std::move(poster)), m_wall(std::move(wall)) {}

StatusReporter::~StatusReporter() {
    if (m_poster) {
        m_poster->close();
    }
}

void StatusReporter::on_event(const std::string& event, const Fields& fields) {
    if (!m_poster || event == wire::event::k_warning) {
        return;  // the poster's own warnings come back here: never take the lock for them
    }
    std::lock_guard lock(m_mutex);
    if (!m_state.apply(event, fields)) {
        return;
    }
    auto status = m_state.status(m_wall());
    if (m_state.finished()) {
        m_poster->finish(std::move(status));
    } else {
        m_poster->update(std::move(status));
    }
}

std::unique_ptr<StatusReporter> make_status_reporter(
    int rank, const EnvLookup& env, const std::function<void(const std::string&)>& warn) {
    if (rank != 0) {
        return std::make_unique<StatusReporter>();
    }
    auto config = read_server_config(env);
    if (!config.ok()) {
        if (warn) {
            warn("trainerStatus posts off: " + config.error());
        }
        return std::make_unique<StatusReporter>();
    }
    if (!config->has_value()) {
        return std::make_unique<StatusReporter>();
    }
    return std::make_unique<StatusReporter>(
        std::make_unique<StatusPoster>(std::move(**config), warn));
}

}  // namespace kftrain::trainer::trainer_status
