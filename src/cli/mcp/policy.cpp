#include "cli/mcp/policy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "util/text.h"

namespace kftrain::cli::mcp {
namespace fs = std::filesystem;

util::Result<std::string> resolve_job_file(const std::string& root, const std::string& path) {
    fs::path given(path);
    for (const auto& part : given) {
        if (part == "..") {
            return util::error(fmt::format(
                "job_file {}: \"..\" is not allowed; give a path inside {}", path, root));
        }
    }
    std::error_code ec;
    fs::path real = fs::canonical(given.is_absolute() ? given : fs::path(root) / given, ec);
    if (ec) {
        return util::error(fmt::format("job_file {}: {}", path, ec.message()));
    }
    const std::string inside = root == "/" ? root : root + "/";
    if (real.string().rfind(inside, 0) != 0) {
        return util::error(
            fmt::format("job_file {}: outside the server's root directory {} (it resolves to {})",
                        path, root, real.string()));
    }
    struct stat st {};
    if (::stat(real.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return util::error(fmt::format("job_file {}: not a regular file", path));
    }
    return real.string();
}

util::Status check_job_namespace(const ServerPolicy& policy, const std::string& job_namespace) {
    const auto& allowed = policy.allowed_namespaces;
    if (allowed.empty() ||
        std::find(allowed.begin(), allowed.end(), job_namespace) != allowed.end()) {
        return util::ok_status();
    }
    return util::error(
        fmt::format("namespace {} is not one this server may use (--allow-namespace {})",
                    job_namespace.empty() ? "(the cluster's default)" : job_namespace,
                    fmt::join(allowed, ", ")));
}

util::Result<std::string> call_namespace(const ServerPolicy& policy, const std::string& requested) {
    std::string ns = requested;
    if (ns.empty()) {
        ns = policy.default_namespace;
    }
    if (ns.empty() && !policy.allowed_namespaces.empty()) {
        ns = policy.allowed_namespaces.front();
    }
    if (auto allowed = check_job_namespace(policy, ns); !allowed) {
        return allowed.error_value();
    }
    return ns;
}

std::string describe_policy(const ServerPolicy& policy) {
    std::string text = policy.local ? "Jobs run on this machine (local backend)."
                                    : "Jobs run on the cluster of the kubeconfig.";
    text += policy.read_only ? " Read-only: the tools that submit, delete or tune are off."
                             : " submit_job, tune_job and delete_job need confirm: true.";
    if (policy.max_cost) {
        text += fmt::format(
            " Budget: a job whose estimated cost is over {:.2f} (or cannot be estimated) "
            "is refused.",
            *policy.max_cost);
    }
    if (!policy.allowed_namespaces.empty()) {
        text += fmt::format(" Namespaces: {} only.", fmt::join(policy.allowed_namespaces, ", "));
    }
    text += fmt::format(" job_file paths are read inside {}.", policy.root);
    return text;
}

}  // namespace kftrain::cli::mcp
