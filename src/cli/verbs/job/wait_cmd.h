#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <optional>
#include <string>

#include "cli/context.h"
#include "cli/verbs/job/wait_loop.h"
#include "job/backend.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain wait` takes.
struct WaitOptions {
    std::string job;
    std::string condition = "succeeded";  // --for
    std::string timeout = "0";            // 0: no limit
    std::string interval = "5s";

    // Derived by complete() and validate().
    WaitPlan plan;
    std::string namespace_;

    // Take the namespace.
    util::Status complete(const Context& ctx);
    // Parse --for, --timeout and --interval into the plan; the message names the flag and
    // the value.
    util::Status validate();
    // Wait for the job; return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain wait`.
void setup_wait(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
