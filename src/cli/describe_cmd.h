#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"

namespace kftrain::cli {

// Everything `kftrain describe` takes.
struct DescribeOptions {
    std::string job;
};

// Register `kftrain describe`.
void setup_describe(CLI::App& app, Context& ctx);

// Print why a job is where it is: status, conditions, events; return the exit code.
int run_describe(const DescribeOptions& options, Context& ctx);

}  // namespace kftrain::cli
