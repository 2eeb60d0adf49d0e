#include "cli/kube/kubectl_errors.h"

#include <fmt/format.h>

#include <vector>

namespace kftrain::cli::kube {
namespace {

bool contains(const std::string& text, const char* needle) {
    return text.find(needle) != std::string::npos;
}

bool contains_any(const std::string& text, const std::vector<const char*>& needles) {
    for (const char* needle : needles) {
        if (contains(text, needle)) {
            return true;
        }
    }
    return false;
}

// kubectl's reason: its first error line (warnings come before it), else its
// last non-empty line, without the "error: " prefix.
std::string reason_line(const std::string& stderr_text) {
    std::string first_error;
    std::string last;
    size_t start = 0;
    while (start < stderr_text.size()) {
        size_t end = stderr_text.find('\n', start);
        if (end == std::string::npos) {
            end = stderr_text.size();
        }
        std::string line = stderr_text.substr(start, end - start);
        if (line.find_first_not_of(" \t\r") != std::string::npos) {
            last = line;
            bool is_error = line.rfind("error", 0) == 0 || line.rfind("Error", 0) == 0 ||
                            line.rfind("Unable", 0) == 0;
            if (first_error.empty() && is_error) {
                first_error = line;
            }
        }
        start = end + 1;
    }
    std::string reason = first_error.empty() ? last : first_error;
    for (const char* prefix : {"error: ", "Error: "}) {
        if (reason.rfind(prefix, 0) == 0) {
            reason = reason.substr(std::string(prefix).size());
        }
    }
    return reason.empty() ? "kubectl failed with no message" : reason;
}

}  // namespace

KubectlFailure classify_kubectl_error(const std::string& text) {
    if (contains(text, "context was not found") ||
        (contains(text, "context \"") && contains(text, "does not exist"))) {
        return KubectlFailure::ContextMissing;
    }
    if (contains_any(text, {"no matches for kind \"PyTorchJob\"", "ensure CRDs are installed",
                            "doesn't have a resource type \"pytorchjob"})) {
        return KubectlFailure::CrdMissing;
    }
    if (contains_any(text, {"Unable to connect to the server", "connection refused", "no such host",
                            "i/o timeout", "dial tcp", "the server is currently unable",
                            "TLS handshake timeout"})) {
        return KubectlFailure::Unreachable;
    }
    if (contains(text, "admission webhook")) {
        return KubectlFailure::Rejected;
    }
    if (contains_any(text, {"(Forbidden)", " is forbidden: "})) {
        return KubectlFailure::Forbidden;
    }
    if (contains_any(text, {"(Unauthorized)", "You must be logged in"})) {
        return KubectlFailure::Unauthorized;
    }
    if (contains(text, "(NotFound)")) {
        return KubectlFailure::NotFound;
    }
    if (contains_any(text, {"(Invalid)", "is invalid:", "(BadRequest)"})) {
        return KubectlFailure::Rejected;
    }
    return KubectlFailure::Other;
}

std::string explain_kubectl_error(const std::string& stderr_text, const std::string& action) {
    std::string reason = reason_line(stderr_text);
    std::string hint;
    switch (classify_kubectl_error(stderr_text)) {
        case KubectlFailure::ContextMissing:
            hint = "list the contexts with 'kubectl config get-contexts'";
            break;
        case KubectlFailure::Unreachable:
            hint =
                "the cluster is unreachable: check --context, --kubeconfig and the network, "
                "or run on this machine with --local";
            break;
        case KubectlFailure::CrdMissing:
            hint =
                "the Kubeflow Training Operator (PyTorchJob CRD) is not installed in this "
                "cluster";
            break;
        case KubectlFailure::Forbidden:
            hint = "your account lacks the RBAC permission for this in that namespace";
            break;
        case KubectlFailure::Unauthorized:
            hint = "log in again or refresh the kubeconfig's credentials";
            break;
        case KubectlFailure::NotFound:
            hint = "check the name and the namespace (-n)";
            break;
        case KubectlFailure::Rejected:
            hint = "the API server rejected the job; 'kftrain render' shows what was sent";
            break;
        case KubectlFailure::Other:
            break;
    }
    if (hint.empty()) {
        return fmt::format("{}: {}", action, reason);
    }
    return fmt::format("{}: {} (hint: {})", action, reason, hint);
}

}  // namespace kftrain::cli::kube
