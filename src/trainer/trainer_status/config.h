#pragma once

#include <optional>
#include <string>

#include "trainer/startup/env.h"
#include "util/result.h"

namespace kftrain::trainer::trainer_status {

// Say where Kubeflow Trainer's controller takes trainerStatus posts, as it injects it.
struct ServerConfig {
    // KUBEFLOW_TRAINER_SERVER_URL: the https:// endpoint posts go to.
    std::string url;
    // KUBEFLOW_TRAINER_SERVER_CA_CERT: the CA file that verifies the endpoint.
    std::string ca_cert;
    // KUBEFLOW_TRAINER_SERVER_TOKEN: the file holding the bearer token (a rotating JWT).
    std::string token_file;
};

// Read KUBEFLOW_TRAINER_SERVER_URL, _CA_CERT and _TOKEN: nullopt when none is set, an error
// naming what is missing when only some are, or when the URL is not https://.
util::Result<std::optional<ServerConfig>> read_server_config(const EnvLookup& env);

// Read the bearer token from its file without surrounding white space; an empty file is an
// error. Read it again for every post: the kubelet rotates it.
util::Result<std::string> read_token(const std::string& path);

}  // namespace kftrain::trainer::trainer_status
