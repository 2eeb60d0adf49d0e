#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"

namespace kftrain::cli {

// Everything `kftrain status` takes.
struct StatusOptions {
    std::string job;
    std::string output;  // "", wide, json, yaml
    bool watch = false;
    std::string interval = "5s";
};

// Register `kftrain status`.
void setup_status(CLI::App& app, Context& ctx);

// Check the flags of status; return an error naming the flag, or "".
std::string validate_status(const StatusOptions& options);

// Show a job's status (and, watching, each change until it ends); return the exit code.
int run_status(const StatusOptions& options, Context& ctx);

}  // namespace kftrain::cli
