#pragma once

#include <string>

namespace kftrain::cli::kube {

// What went wrong in a failed kubectl call, read from its stderr.
enum class KubectlFailure {
    ContextMissing,  // the --context does not exist in the kubeconfig
    Unreachable,     // no answer from the API server
    CrdMissing,      // the PyTorchJob kind is not installed
    Forbidden,       // RBAC said no
    NotFound,        // the object does not exist
    Rejected,        // the API server or a webhook refused the object
    Unauthorized,    // credentials missing or expired
    Other,
};

// Classify kubectl's stderr.
KubectlFailure classify_kubectl_error(const std::string& stderr_text);

// Turn a failed kubectl call into one line: kubectl's own reason and a hint.
std::string explain_kubectl_error(const std::string& stderr_text, const std::string& action);

}  // namespace kftrain::cli::kube
