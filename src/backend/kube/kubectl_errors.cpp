#include "backend/kube/kubectl_errors.h"

#include <fmt/format.h>

#include <vector>

#include "util/text.h"

namespace kftrain::backend::kube {
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

// The word kubectl quotes after marker: `... resource type "trainjobs"` gives trainjobs.
std::string quoted_after(const std::string& text, const char* marker) {
    size_t at = text.find(marker);
    if (at == std::string::npos) {
        return "";
    }
    size_t start = at + std::string(marker).size();
    size_t end = text.find('"', start);
    return end == std::string::npos ? "" : text.substr(start, end - start);
}

// Which CRD is missing, in the words of a hint.
std::string crd_missing_hint(const std::string& stderr_text) {
    auto kind = unserved_kind(stderr_text);
    if (kind == manifest::JobKind::TrainJob) {
        return "Kubeflow Trainer v2 (TrainJob CRD) is not installed in this cluster";
    }
    if (contains(stderr_text, "trainingruntime") || contains(stderr_text, "TrainingRuntime")) {
        return "Kubeflow Trainer v2 (its training runtime CRDs) is not installed in this cluster";
    }
    if (kind) {
        return fmt::format(
            "the Kubeflow Training Operator ({} CRD) is not installed in this "
            "cluster",
            manifest::kind_name(*kind));
    }
    return "the resource's CRD is not installed in this cluster";
}

}  // namespace

std::optional<manifest::JobKind> unserved_kind(const std::string& stderr_text) {
    std::string kind = quoted_after(stderr_text, "no matches for kind \"");
    if (!kind.empty()) {
        return manifest::parse_kind(kind);
    }
    std::string resource = quoted_after(stderr_text, "doesn't have a resource type \"");
    for (auto candidate : manifest::k_kinds) {
        if (!resource.empty() && resource.rfind(manifest::kind_short_name(candidate), 0) == 0) {
            return candidate;
        }
    }
    return std::nullopt;
}

std::string printable_line(const std::string& text, size_t max_chars) {
    std::string out;
    size_t shown = 0;
    while (shown < text.size()) {
        std::string piece;  // one whole character, as the terminal may see it
        const size_t next = util::append_printable_at(piece, text, shown);
        if (out.size() + piece.size() > max_chars) {
            break;
        }
        out += piece;
        shown = next;
    }
    if (shown < text.size()) {
        out += fmt::format("... ({} more bytes)", text.size() - shown);
    }
    return out;
}

const char* kind_provider(manifest::JobKind kind) {
    return kind == manifest::JobKind::TrainJob ? "Kubeflow Trainer v2"
                                               : "Kubeflow Training Operator";
}

KubectlFailure classify_kubectl_error(const std::string& text) {
    if (contains(text, "context was not found") ||
        (contains(text, "context \"") && contains(text, "does not exist"))) {
        return KubectlFailure::ContextMissing;
    }
    if (contains_any(text, {"no matches for kind \"", "ensure CRDs are installed",
                            "doesn't have a resource type \""})) {
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
            hint = crd_missing_hint(stderr_text);
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
    return explain_kubectl_error(stderr_text, action, hint);
}

std::string explain_kubectl_error(const std::string& stderr_text, const std::string& action,
                                  const std::string& hint) {
    std::string reason = printable_line(reason_line(stderr_text));
    if (hint.empty()) {
        return fmt::format("{}: {}", action, reason);
    }
    return fmt::format("{}: {} (hint: {})", action, reason, hint);
}

}  // namespace kftrain::backend::kube
