#pragma once

#include <optional>
#include <string>

#include "trainer/startup/env.h"
#include "util/result.h"

namespace kftrain::trainer::mlflow {

// Hold what the environment says about MLflow tracking, credentials included.
struct MlflowConfig {
    // Base URL without a trailing slash, e.g. http://mlflow:5000.
    std::string tracking_uri;
    std::string experiment_name;
    std::string experiment_id;
    std::string run_name;
    std::string token;
    std::string username;
    std::string password;
    bool insecure_tls = false;
    std::string cert_path;
    std::string job_name;
    std::string job_namespace;
    std::string image;
};

// Read MLFLOW_* and KFTRAIN_JOB_NAME/NAMESPACE/IMAGE; nullopt when MLFLOW_TRACKING_URI is
// unset or empty, an error when it is not an http(s) URL.
util::Result<std::optional<MlflowConfig>> read_mlflow_config(const EnvLookup& env);

// Return text with the token, the password and any user:password@ in URLs masked as ***.
std::string redact_secrets(const std::string& text, const MlflowConfig& config);

// Return the tracking URI without user information, fit to print.
std::string printable_uri(const MlflowConfig& config);

}  // namespace kftrain::trainer::mlflow
