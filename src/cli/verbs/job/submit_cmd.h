#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cost/cost_guard.h"
#include "job/backend.h"
#include "load/job_input.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain submit` takes.
struct SubmitOptions {
    load::JobInput job;
    std::string dry_run = "none";  // --dry-run as typed: none, "" or client (print), server
    bool replace = false;          // local: replace a running job of the same name
    bool force = false;            // submit what the quotas can never admit (a warning)
    std::vector<std::string> env_from_shell;  // local: variables passed from the shell
    bool follow = false;                      // stream the logs until the job ends
    bool wait = false;                        // wait until the job succeeds (exit 0) or fails (1)
    bool stop_on_interrupt = false;           // with --follow: Ctrl-C stops the job too
    bool no_progress = false;                 // with --follow: plain lines, no live progress lines
    cost::CostGuard cost;                     // --max-cost (estimate feature, cost/cost_guard.h)
    std::string state_out;    // --state-out: write the job's final state here (a pipeline step)
    std::string metrics_out;  // --metrics-out: write its final progress as JSON here

    // Derived by complete() and validate().
    job::RenderedJob rendered;  // the job file, rendered
    std::string namespace_;     // the job's: -n, else the job file's
    job::DryRun dry = job::DryRun::None;

    // Load and render the job file; its namespace is where --wait and --follow look.
    util::Status complete(const Context& ctx);
    // Parse --dry-run and check the flags that go together; the message names the flag.
    util::Status validate();
    // Print (client dry run) or submit the job, then wait or follow; return the exit code.
    int run(Context& ctx) const;
    // Write --state-out and --metrics-out from the ended job's status.
    util::Status write_outputs(job::Backend& backend, Context& ctx) const;
};

// Add the flags of what submit does with a rendered job, the same in every verb that submits
// (submit, run): --dry-run, --replace, --force, --env-from-shell, --follow, --wait,
// --stop-on-interrupt,
// --no-progress, --state-out, --metrics-out and the cost guard's. Return --dry-run, whose bare
// form the verb's callback reads with read_bare_dry_run before running.
CLI::Option* add_submit_flags(CLI::App& sub, SubmitOptions& options);

// Read --dry-run given without a value as client (CLI11 tells that only through the option).
void read_bare_dry_run(const CLI::Option& dry_run, SubmitOptions& options);

// Register `kftrain submit`.
void setup_submit(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
