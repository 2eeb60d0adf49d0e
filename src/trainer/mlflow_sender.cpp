#include "trainer/mlflow_sender.h"

#include <fmt/format.h>

namespace kftrain::trainer {

int64_t unix_time_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

MlflowSender::MlflowSender(const MlflowConfig& config, const MlflowRunContext& context,
                           const MlflowOptions& options, const std::atomic<bool>* abort, Wait wait,
                           int64_t start_time_ms)
    : m_config(config),
      m_context(context),
      m_options(options),
      m_http(config, options.request_timeout, abort),
      m_wait(std::move(wait)),
      m_start_time_ms(start_time_ms) {}

CallResult MlflowSender::post(const std::string& endpoint, const nlohmann::json& body) {
    const std::string text = body.dump();
    return call_with_retry([&] { return m_http.post(endpoint, text); }, m_options.retry, m_wait,
                           m_counts);
}

CallResult MlflowSender::get(const std::string& endpoint, const std::string& query) {
    return call_with_retry([&] { return m_http.get(endpoint, query); }, m_options.retry, m_wait,
                           m_counts);
}

void MlflowSender::warn(const std::string& message) {
    m_warnings += 1;
    if (m_context.warn) {
        m_context.warn(redact_secrets(message, m_config));
    }
}

// Report a failed call once and switch tracking off; always returns false.
bool MlflowSender::fail(const CallResult& result, const std::string& what) {
    m_off = true;
    switch (result.kind) {
        case CallResult::Kind::unreachable:
            warn(fmt::format(
                "MLflow tracking off: {} got no usable answer from {} after {} attempt{} "
                "({}); training continues without tracking",
                what, printable_uri(m_config), result.attempts, result.attempts == 1 ? "" : "s",
                describe_failure(result)));
            break;
        case CallResult::Kind::rejected:
            warn(
                fmt::format("MLflow tracking off: {} was refused by {} ({}); training continues "
                            "without tracking",
                            what, printable_uri(m_config), describe_failure(result)));
            break;
        case CallResult::Kind::ok:
            warn(fmt::format(
                "MLflow tracking off: {} got an unexpected answer from {} ({}); training "
                "continues without tracking",
                what, printable_uri(m_config), describe_failure(result)));
            break;
        case CallResult::Kind::aborted:
            break;
    }
    return false;
}

bool MlflowSender::send(const TrackEvents& events) {
    if (m_off) {
        return false;
    }
    if (m_run_id.empty() && !start_run()) {
        return false;
    }
    if (!events.params.empty() && !send_params(events.params)) {
        return false;
    }
    if (!events.metrics.empty() && !send_metrics(events.metrics)) {
        return false;
    }
    if (!events.status.empty()) {
        auto r =
            post("runs/update", update_run_body(m_run_id, events.status, events.status_time_ms));
        if (!r.ok()) {
            return fail(r, fmt::format("marking the run {}", events.status));
        }
    }
    return true;
}

bool MlflowSender::send_params(const std::map<std::string, std::string>& params) {
    for (const auto& body : param_batches(m_run_id, params)) {
        auto r = post("runs/log-batch", body);
        if (r.kind == CallResult::Kind::rejected && m_resumed) {
            // A restarted run may log a parameter with a new value, which MLflow refuses.
            warn(fmt::format("MLflow kept the parameters of the run's first attempt ({})",
                             describe_failure(r)));
            continue;
        }
        if (!r.ok()) {
            return fail(r, "logging parameters");
        }
    }
    return true;
}

bool MlflowSender::send_metrics(const std::vector<MetricPoint>& metrics) {
    for (const auto& body : metric_batches(m_run_id, metrics)) {
        auto r = post("runs/log-batch", body);
        if (!r.ok()) {
            return fail(r, "logging metrics");
        }
        m_metrics_sent += static_cast<int64_t>(body["metrics"].size());
    }
    return true;
}

}  // namespace kftrain::trainer
