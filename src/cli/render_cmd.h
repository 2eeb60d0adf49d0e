#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"
#include "cli/job_input.h"

namespace kftrain::cli {

// Everything `kftrain render` takes.
struct RenderOptions {
    JobInput job;
    std::string output = "yaml";
};

// Register `kftrain render`.
void setup_render(CLI::App& app, Context& ctx);

// Print the PyTorchJob a job file makes; return the exit code.
int run_render(const RenderOptions& options, Context& ctx);

}  // namespace kftrain::cli
