#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"

namespace kftrain::cli {

// Everything `kftrain delete` takes.
struct DeleteOptions {
    std::string job;
    bool wait = false;
};

// Register `kftrain delete`.
void setup_delete(CLI::App& app, Context& ctx);

// Delete a job and its pods; return the exit code.
int run_delete(const DeleteOptions& options, Context& ctx);

}  // namespace kftrain::cli
