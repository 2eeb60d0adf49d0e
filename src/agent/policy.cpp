#include "agent/policy.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "manifest/yaml/input.h"
#include "util/fd/dir_beneath.h"

namespace kftrain::agent {
namespace fs = std::filesystem;
namespace {

// Read all of fd, at most a job file's size.
util::Result<std::string> read_bounded(int fd) {
    std::string text;
    char buffer[65536];
    ssize_t n = 0;
    while ((n = ::read(fd, buffer, sizeof buffer)) > 0 &&
           text.size() <= manifest::k_max_input_bytes) {
        text.append(buffer, static_cast<size_t>(n));
    }
    if (n < 0 || text.size() > manifest::k_max_input_bytes) {
        return util::error(n < 0 ? std::string(std::strerror(errno)) : "too large");
    }
    return text;
}

}  // namespace

util::Result<std::string> read_job_file(const std::string& root, const std::string& path) {
    auto refuse = [&path](const std::string& why) {
        return util::error(fmt::format("job_file {}: {}", path, why));
    };
    std::string relative = path;
    if (!relative.empty() && relative.front() == '/') {
        const std::string inside = root == "/" ? root : root + "/";
        if (relative.rfind(inside, 0) != 0) {
            return refuse("outside the server's root directory (--root)");
        }
        relative = relative.substr(inside.size());
    }
    std::vector<std::string> parts;
    for (const auto& part : fs::path(relative)) {
        if (part == "..") {
            return refuse("\"..\" is not allowed; give a path inside the server's root");
        }
        if (!part.empty() && part != "." && part != "/") {
            parts.push_back(part.string());
        }
    }
    if (parts.empty()) {
        return refuse("not a file");
    }
    const std::string leaf = parts.back();
    parts.pop_back();
    const util::UniqueFd top(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    const util::DirBeneath dir =
        top ? util::open_dir_beneath(top.get(), fmt::format("{}", fmt::join(parts, "/")), false)
            : util::DirBeneath{};
    const util::UniqueFd file(
        dir.fd ? ::openat(dir.fd.get(), leaf.c_str(),
                          O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
               : -1);
    struct stat st {};
    if (!file || ::fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return refuse(
            "no regular file of that name inside the server's root (symlinks are "
            "not followed)");
    }
    if (static_cast<size_t>(st.st_size) > manifest::k_max_input_bytes) {
        return refuse(fmt::format("larger than {} bytes", manifest::k_max_input_bytes));
    }
    auto text = read_bounded(file.get());
    if (!text) {
        return refuse(text.error());
    }
    // Only a job file goes on to the verbs, and no error says anything of another file's
    // content (a key, a .netrc): the root may hold more than job files.
    auto parsed = manifest::parse_yaml(*text, path);
    if (!parsed || !parsed->IsMap()) {
        return refuse("not a job file (a YAML map of job settings); nothing of it is shown");
    }
    return text;
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

}  // namespace kftrain::agent
