#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "cli/job_cost.h"

namespace kftrain::cli {

// Everything `kftrain list` takes.
struct ListOptions {
    bool all_namespaces = false;
    std::string output;  // "", wide, json, yaml
    std::string prices;  // --prices: the catalog of -o wide's COST column
};

// Register `kftrain list`.
void setup_list(CLI::App& app, Context& ctx);

// Check the flags of list; return an error naming the flag, or "".
std::string validate_list(const ListOptions& options);

// List the jobs, priced; return the exit code.
int run_list(const ListOptions& options, const Pricing& pricing, Context& ctx);

}  // namespace kftrain::cli
