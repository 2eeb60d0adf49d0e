#include "trainer/mlflow/run_logger.h"

#include <fmt/format.h>

namespace kftrain::trainer::mlflow {

const char* mlflow_status_name(RunStatus status) {
    switch (status) {
        case RunStatus::running:
            return "RUNNING";
        case RunStatus::finished:
            return "FINISHED";
        case RunStatus::failed:
            return "FAILED";
        case RunStatus::killed:
            return "KILLED";
    }
    return "FAILED";
}

MlflowRunLogger::MlflowRunLogger(MlflowConfig config, MlflowRunContext context,
                                 MlflowOptions options)
    : m_config(std::move(config)),
      m_context(std::move(context)),
      m_options(options),
      m_start_time_ms(unix_time_ms()),
      m_queue(options.max_queued_metrics) {
    init_curl_once();
    m_thread = std::thread([this] { send_loop(); });
}

MlflowRunLogger::~MlflowRunLogger() {
    close();
}

void MlflowRunLogger::log_params(const std::map<std::string, std::string>& params) {
    if (!m_off) {
        m_queue.push_params(params);
    }
}

void MlflowRunLogger::log_metrics(const std::map<std::string, double>& metrics, int64_t step) {
    if (m_off) {
        return;
    }
    const int64_t now = unix_time_ms();
    std::vector<MetricPoint> points;
    points.reserve(metrics.size());
    for (const auto& [key, value] : metrics) {
        points.push_back(MetricPoint{key, value, now, step});
    }
    m_queue.push_metrics(points);
}

void MlflowRunLogger::set_status(RunStatus status) {
    if (!m_off) {
        m_queue.push_status(mlflow_status_name(status), unix_time_ms());
    }
}

bool MlflowRunLogger::wait_backoff(std::chrono::milliseconds delay) {
    std::unique_lock lock(m_mutex);
    m_cv.wait_for(lock, delay, [&] { return m_abort.load(); });
    return !m_abort;
}

void MlflowRunLogger::publish(const MlflowSender& sender) {
    std::lock_guard lock(m_mutex);
    m_stats.requests = sender.counts().requests;
    m_stats.retries = sender.counts().retries;
    m_stats.metrics_sent = sender.metrics_sent();
    m_stats.warnings = sender.warnings();
    m_stats.resumed = sender.resumed();
    m_stats.run_id = sender.run_id();
    m_stats.off = m_off;
}

void MlflowRunLogger::send_loop() {
    MlflowSender sender(
        m_config, m_context, m_options, &m_abort,
        [this](std::chrono::milliseconds d) { return wait_backoff(d); }, m_start_time_ms);
    constexpr auto k_idle_wake = std::chrono::hours(1);
    while (!m_abort) {
        TrackEvents events = m_queue.take(std::chrono::steady_clock::now() + k_idle_wake);
        if (events.empty()) {
            if (m_queue.closed()) {
                break;
            }
            continue;
        }
        if (!sender.send(events) && !m_abort) {
            m_off = true;
            m_queue.clear();
        }
        publish(sender);
    }
    publish(sender);
    std::lock_guard lock(m_mutex);
    m_done = true;
    m_cv.notify_all();
}

void MlflowRunLogger::close() {
    if (!m_thread.joinable()) {
        return;
    }
    m_queue.close();
    bool cut_short = false;
    {
        std::unique_lock lock(m_mutex);
        if (!m_cv.wait_for(lock, m_options.flush_budget, [&] { return m_done; })) {
            cut_short = true;
            m_abort = true;
            m_cv.notify_all();
        }
    }
    m_thread.join();
    std::lock_guard lock(m_mutex);
    m_stats.closed = true;
    m_stats.flush_cut_short = cut_short;
    m_stats.metrics_dropped = m_queue.dropped();
    if (cut_short && !m_off && m_context.warn) {
        m_stats.warnings += 1;
        m_context.warn(fmt::format(
            "MLflow: pending tracking data not sent within the {:g}s flush limit at exit",
            std::chrono::duration<double>(m_options.flush_budget).count()));
    }
    if (m_stats.metrics_dropped > 0 && m_context.warn) {
        m_stats.warnings += 1;
        m_context.warn(
            fmt::format("MLflow: {} metric values dropped: the tracking server was "
                        "slower than training",
                        m_stats.metrics_dropped));
    }
}

MlflowStats MlflowRunLogger::stats() const {
    std::lock_guard lock(m_mutex);
    MlflowStats s = m_stats;
    s.metrics_dropped = m_queue.dropped();
    return s;
}

}  // namespace kftrain::trainer::mlflow
