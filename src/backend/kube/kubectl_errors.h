#pragma once

#include <optional>
#include <string>

#include "manifest/job_kind.h"

namespace kftrain::backend::kube {

// What went wrong in a failed kubectl call, read from its stderr.
enum class KubectlFailure {
    ContextMissing,  // the --context does not exist in the kubeconfig
    Unreachable,     // no answer from the API server
    CrdMissing,      // the PyTorchJob or TrainJob kind (or a runtime's) is not installed
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

// Turn a failed kubectl call into one line: kubectl's own reason and this hint.
std::string explain_kubectl_error(const std::string& stderr_text, const std::string& action,
                                  const std::string& hint);

// Return kubectl's text fit for a terminal line: control characters escaped (\x1b, \r), and
// cut after max_chars with a note of how much was left out.
std::string printable_line(const std::string& text, size_t max_chars = 300);

// Return the job kind kubectl's stderr says the cluster does not serve (`the server doesn't
// have a resource type "trainjobs"`, `no matches for kind "PyTorchJob"`); nullopt for none.
std::optional<manifest::JobKind> unserved_kind(const std::string& stderr_text);

// Return what installs a kind: "Kubeflow Training Operator" or "Kubeflow Trainer v2".
const char* kind_provider(manifest::JobKind kind);

}  // namespace kftrain::backend::kube
