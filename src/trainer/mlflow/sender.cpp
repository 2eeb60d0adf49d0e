#include "trainer/mlflow/sender.h"

#include <fmt/format.h>

#include "trainer/mlflow/run_id.h"
#include "trainer/version.h"

namespace kftrain::trainer::mlflow {
namespace {

constexpr const char* k_missing = "RESOURCE_DOES_NOT_EXIST";
constexpr const char* k_exists = "RESOURCE_ALREADY_EXISTS";

bool rejected_with(const CallResult& r, const char* code) {
    return r.kind == CallResult::Kind::rejected && r.error().error_code == code;
}

}  // namespace

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

std::map<std::string, std::string> MlflowSender::run_tags() const {
    std::map<std::string, std::string> tags = {
        {"mlflow.source.name", "kftrain-trainer"},
        {"kftrain.world_size", std::to_string(m_context.world_size)},
        {"kftrain.trainer_version", k_trainer_version},
    };
    const std::pair<const char*, const std::string*> optional[] = {
        {"kftrain.job_name", &m_config.job_name},
        {"kftrain.namespace", &m_config.job_namespace},
        {"kftrain.image", &m_config.image},
    };
    for (const auto& [key, value] : optional) {
        if (!value->empty()) {
            tags[key] = *value;
        }
    }
    return tags;
}

std::optional<std::string> MlflowSender::create_experiment() {
    auto r = post("experiments/create", {{"name", m_config.experiment_name}});
    if (r.ok()) {
        const auto j = nlohmann::json::parse(r.last.body, nullptr, false);
        if (j.is_object() && j.contains("experiment_id") && j["experiment_id"].is_string()) {
            return j["experiment_id"].get<std::string>();
        }
    }
    if (rejected_with(r, k_exists)) {
        return std::nullopt;  // created meanwhile by someone else: look it up again
    }
    fail(r, fmt::format("creating experiment '{}'", m_config.experiment_name));
    return std::nullopt;
}

std::optional<std::string> MlflowSender::experiment_id() {
    if (!m_config.experiment_id.empty()) {
        return m_config.experiment_id;
    }
    if (m_config.experiment_name.empty()) {
        return std::string("0");  // MLflow's Default experiment
    }
    const std::string query = "experiment_name=" + m_http.escape(m_config.experiment_name);
    const std::string what = fmt::format("looking up experiment '{}'", m_config.experiment_name);
    for (int round = 0; round < 2; ++round) {
        auto r = get("experiments/get-by-name", query);
        if (r.ok() && !experiment_id_of(r.last.body).empty()) {
            return experiment_id_of(r.last.body);
        }
        if (!rejected_with(r, k_missing)) {
            fail(r, what);
            return std::nullopt;
        }
        if (auto created = create_experiment()) {
            return created;
        }
        if (m_off) {
            return std::nullopt;
        }
    }
    CallResult gone;
    gone.last.status = 404;
    gone.last.body = "the experiment was created but cannot be found";
    fail(gone, what);
    return std::nullopt;
}

// Mark a kept run RUNNING again; resumed says whether it exists, false return means off.
bool MlflowSender::resume_run(const std::string& run_id, bool& resumed) {
    auto r = post("runs/update", update_run_body(run_id, "RUNNING", 0));
    resumed = r.ok();
    if (r.ok() || rejected_with(r, k_missing)) {
        if (!r.ok()) {
            warn(fmt::format("MLflow run {} kept in {} no longer exists; starting a new run",
                             run_id, m_context.checkpoint_dir));
        }
        return true;
    }
    return fail(r, fmt::format("resuming run {}", run_id));
}

bool MlflowSender::start_run() {
    if (auto kept = read_run_id(m_context.checkpoint_dir)) {
        bool resumed = false;
        if (!resume_run(*kept, resumed)) {
            return false;
        }
        if (resumed) {
            m_run_id = *kept;
            m_resumed = true;
            // The restarted job may differ (world size, image): refresh the tags.
            auto r = post("runs/log-batch", tag_batch_body(m_run_id, run_tags()));
            return r.ok() || fail(r, "updating the run's tags");
        }
    }
    const auto experiment = experiment_id();
    if (!experiment) {
        return false;
    }
    auto r = post("runs/create",
                  create_run_body(*experiment, m_config.run_name, m_start_time_ms, run_tags()));
    if (!r.ok()) {
        return fail(r, "creating the run");
    }
    m_run_id = run_id_of(r.last.body);
    if (m_run_id.empty()) {
        r.kind = CallResult::Kind::rejected;
        return fail(r, "creating the run (no run id in the answer)");
    }
    if (!m_context.checkpoint_dir.empty()) {
        auto kept = write_run_id(m_context.checkpoint_dir, m_run_id);
        if (!kept.ok()) {
            warn("MLflow run id not kept, a restart will start a new run: " + kept.error());
        }
    }
    return true;
}

}  // namespace kftrain::trainer::mlflow
