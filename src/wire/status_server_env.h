#pragma once

// The variables Kubeflow Trainer v2.2+ sets on every node for its status server, and kftrain's
// local backend on every replica of a local job of either kind: where to post trainerStatus,
// the CA that verifies the server, and the file holding the bearer token. The trainer (which
// posts) and the CLI (which sets and reserves them) spell them here once.

namespace kftrain::wire {

inline constexpr const char* k_status_server_url_env = "KUBEFLOW_TRAINER_SERVER_URL";
inline constexpr const char* k_status_server_ca_env = "KUBEFLOW_TRAINER_SERVER_CA_CERT";
inline constexpr const char* k_status_server_token_env = "KUBEFLOW_TRAINER_SERVER_TOKEN";

}  // namespace kftrain::wire
