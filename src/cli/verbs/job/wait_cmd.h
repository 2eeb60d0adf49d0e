#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <optional>
#include <string>

#include "cli/context.h"
#include "job/backend.h"
#include "job/wait_condition.h"
#include "util/result.h"

namespace kftrain::cli {

// How a wait runs once its flags are checked.
struct WaitPlan {
    job::WaitFor condition = job::WaitFor::Succeeded;
    double timeout_s = 0;  // 0: no limit
    double interval_s = 5;
};

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

// Poll a job until the plan's condition holds, printing each change of state; return 0 met,
// 1 the job failed, 3 not found, 4 cluster error, 5 timed out (at give_up_at when given, else
// the plan's timeout from now).
int wait_for_job(job::Backend& backend, const std::string& job, const WaitPlan& plan, Context& ctx,
                 std::optional<std::chrono::steady_clock::time_point> give_up_at = std::nullopt);

}  // namespace kftrain::cli
