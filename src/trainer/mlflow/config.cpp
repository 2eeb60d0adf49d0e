#include "trainer/mlflow/config.h"

#include <fmt/format.h>

#include "util/redact.h"
#include "util/text.h"

namespace kftrain::trainer::mlflow {
namespace {

std::string get(const EnvLookup& env, const char* name) {
    return env(name).value_or("");
}

// Tell whether an environment value means true, as MLflow's clients read it.
bool truthy(const std::string& value) {
    const std::string lower = util::to_lower(value);
    return lower == "true" || lower == "1" || lower == "yes";
}

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

void replace_all(std::string& text, const std::string& needle, const std::string& with) {
    if (needle.empty()) {
        return;
    }
    for (auto pos = text.find(needle); pos != std::string::npos;
         pos = text.find(needle, pos + with.size())) {
        text.replace(pos, needle.size(), with);
    }
}

}  // namespace

util::Result<std::optional<MlflowConfig>> read_mlflow_config(const EnvLookup& env) {
    MlflowConfig c;
    c.tracking_uri = get(env, "MLFLOW_TRACKING_URI");
    if (c.tracking_uri.empty()) {
        return std::optional<MlflowConfig>{};
    }
    while (!c.tracking_uri.empty() && c.tracking_uri.back() == '/') {
        c.tracking_uri.pop_back();
    }
    c.experiment_name = get(env, "MLFLOW_EXPERIMENT_NAME");
    c.experiment_id = get(env, "MLFLOW_EXPERIMENT_ID");
    c.job_name = get(env, "KFTRAIN_JOB_NAME");
    c.job_namespace = get(env, "KFTRAIN_NAMESPACE");
    c.image = get(env, "KFTRAIN_IMAGE");
    c.run_name = get(env, "MLFLOW_RUN_NAME");
    if (c.run_name.empty()) {
        c.run_name = c.job_name;
    }
    c.token = get(env, "MLFLOW_TRACKING_TOKEN");
    c.username = get(env, "MLFLOW_TRACKING_USERNAME");
    c.password = get(env, "MLFLOW_TRACKING_PASSWORD");
    c.insecure_tls = truthy(get(env, "MLFLOW_TRACKING_INSECURE_TLS"));
    c.cert_path = get(env, "MLFLOW_TRACKING_SERVER_CERT_PATH");
    if (!starts_with(c.tracking_uri, "http://") && !starts_with(c.tracking_uri, "https://")) {
        return util::error(fmt::format(
            "MLFLOW_TRACKING_URI must be an http:// or https:// URL of a tracking server (got {})",
            printable_uri(c)));
    }
    return std::optional<MlflowConfig>{std::move(c)};
}

std::string redact_secrets(const std::string& text, const MlflowConfig& config) {
    std::string out = text;
    replace_all(out, config.token, "***");
    replace_all(out, config.password, "***");
    return util::redact_credentials(out);
}

std::string printable_uri(const MlflowConfig& config) {
    return util::redact_credentials(config.tracking_uri);
}

}  // namespace kftrain::trainer::mlflow
