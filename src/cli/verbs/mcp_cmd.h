#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "agent/policy.h"
#include "cli/context.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain mcp` takes.
struct McpOptions {
    bool read_only = false;                       // --read-only
    std::optional<std::string> max_cost;          // --max-cost as typed
    std::vector<std::string> allowed_namespaces;  // --allow-namespace
    std::optional<std::string> root;              // --root; default: the working directory

    // Derived by complete() and validate().
    agent::ServerPolicy policy;
    std::vector<std::string> global_args;  // passed on to every verb a tool runs

    // Take the global flags and resolve --root (it must be a directory).
    util::Status complete(const Context& ctx);
    // Check --max-cost (an amount) and every --allow-namespace (a DNS-1123 label).
    util::Status validate();
    // Serve MCP on standard input and output until the input ends; return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain mcp`.
void setup_mcp(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
