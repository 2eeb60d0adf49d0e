#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/backend.h"
#include "cli/context.h"
#include "cli/wait_condition.h"

namespace kftrain::cli {

// Everything `kftrain wait` takes.
struct WaitOptions {
    std::string job;
    std::string condition = "succeeded";  // --for
    std::string timeout = "0";            // 0: no limit
    std::string interval = "5s";
};

// How a wait runs once its flags are checked.
struct WaitPlan {
    WaitFor condition = WaitFor::Succeeded;
    double timeout_s = 0;  // 0: no limit
    double interval_s = 5;
};

// Register `kftrain wait`.
void setup_wait(CLI::App& app, Context& ctx);

// Check the flags of wait; return an error naming the flag, or "".
std::string validate_wait(const WaitOptions& options);

// Wait for a job; return the exit code.
int run_wait(const WaitOptions& options, Context& ctx);

// Poll a job until the plan's condition holds, printing each change of state;
// return 0 met, 1 the job failed, 3 not found, 4 cluster error, 5 timed out.
int wait_for_job(Backend& backend, const std::string& job, const WaitPlan& plan, Context& ctx);

}  // namespace kftrain::cli
