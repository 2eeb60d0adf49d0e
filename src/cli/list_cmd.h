#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"

namespace kftrain::cli {

// Everything `kftrain list` takes.
struct ListOptions {
    bool all_namespaces = false;
    std::string output;  // "", wide, json, yaml
};

// Register `kftrain list`.
void setup_list(CLI::App& app, Context& ctx);

// Check the flags of list; return an error naming the flag, or "".
std::string validate_list(const ListOptions& options);

// List the jobs; return the exit code.
int run_list(const ListOptions& options, Context& ctx);

}  // namespace kftrain::cli
