#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"
#include "cli/estimate_guard.h"
#include "cli/job_input.h"

namespace kftrain::cli {

// Everything `kftrain submit` takes.
struct SubmitOptions {
    JobInput job;
    std::string dry_run = "none";  // none, client (print only) or server
    bool replace = false;           // local: replace a running job of the same name
    bool follow = false;            // local: stream the logs until the job ends
    bool wait = false;              // wait until the job succeeds (exit 0) or fails (1)
    bool stop_on_interrupt = false;  // local: Ctrl-C while following stops the job too
    CostGuard cost;                  // --max-cost (estimate feature, cli/estimate_guard.h)
};

// Register `kftrain submit`.
void setup_submit(CLI::App& app, Context& ctx);

// Check the flags of submit; return an error naming the flag, or "".
std::string validate_submit(const SubmitOptions& options);

// Submit a job; return the exit code.
int run_submit(const SubmitOptions& options, Context& ctx);

}  // namespace kftrain::cli
