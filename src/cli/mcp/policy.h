#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::cli::mcp {

// What the server lets its tools do: the flags of `kftrain mcp`.
struct ServerPolicy {
    bool read_only = false;                       // --read-only
    bool local = false;                           // --local
    std::optional<double> max_cost;               // --max-cost, in the price catalog's currency
    std::vector<std::string> allowed_namespaces;  // --allow-namespace; empty: any
    std::string default_namespace;                // -n
    std::string root;                             // --root, absolute and without symlinks
};

// Resolve a tool's job_file inside root: relative paths from root, no ".." part, no symlink
// leading out of root, and a regular file. The message names the argument and the path.
util::Result<std::string> resolve_job_file(const std::string& root, const std::string& path);

// Return the namespace a call about a named job or a listing works in: the requested one, else
// the server's -n, else the first --allow-namespace, else "" (the cluster's default). A
// namespace outside --allow-namespace is refused.
util::Result<std::string> call_namespace(const ServerPolicy& policy, const std::string& requested);

// Refuse a job whose rendered namespace is outside --allow-namespace.
util::Status check_job_namespace(const ServerPolicy& policy, const std::string& job_namespace);

// Describe the limits in force, for the initialize result's instructions.
std::string describe_policy(const ServerPolicy& policy);

}  // namespace kftrain::cli::mcp
