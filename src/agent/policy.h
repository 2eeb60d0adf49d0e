#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::agent {

// What the server lets its tools do: the flags of `kftrain mcp`.
struct ServerPolicy {
    bool read_only = false;                       // --read-only
    bool local = false;                           // --local
    std::optional<double> max_cost;               // --max-cost, in the price catalog's currency
    std::vector<std::string> allowed_namespaces;  // --allow-namespace; empty: any
    std::string default_namespace;                // -n
    std::string root;                             // --root, absolute and without symlinks
};

// Read a tool's job_file inside root, once: a path relative to root (an absolute one must lie
// under it), opened part by part without following any symlink and without "..", a regular
// file of at most manifest::k_max_input_bytes. Its text is what every verb of the call reads
// (through -f -), so nothing can swap the file between a check and a use. The message names
// the argument and the path as given, never what lies outside root.
util::Result<std::string> read_job_file(const std::string& root, const std::string& path);

// Return the namespace a call about a named job or a listing works in: the requested one, else
// the server's -n, else the first --allow-namespace, else "" (the cluster's default). A
// namespace outside --allow-namespace is refused.
util::Result<std::string> call_namespace(const ServerPolicy& policy, const std::string& requested);

// Refuse a job whose rendered namespace is outside --allow-namespace.
util::Status check_job_namespace(const ServerPolicy& policy, const std::string& job_namespace);

// Describe the limits in force, for the initialize result's instructions.
std::string describe_policy(const ServerPolicy& policy);

}  // namespace kftrain::agent
