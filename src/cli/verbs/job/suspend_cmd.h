#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "job/lifecycle.h"
#include "util/result.h"

namespace kftrain::cli {

// How long suspend and resume wait for the change to take effect.
struct ChangePlan {
    double timeout_s = 300;  // 0: no limit
    double interval_s = 2;
    bool wait = true;  // false: return once the job is patched
};

// Everything `kftrain suspend` (and, with change Resume, `kftrain resume`) takes.
struct SuspendOptions {
    job::Change change = job::Change::Suspend;
    std::string job;
    std::string timeout = "5m";
    std::string interval = "2s";
    bool no_wait = false;

    // Derived by complete() and validate().
    ChangePlan plan;
    std::string namespace_;

    // Take the namespace.
    util::Status complete(const Context& ctx);
    // Check the job name and parse --timeout and --interval; the message names the flag.
    util::Status validate();
    // Suspend (resume) the job and wait until its replicas are gone (back); return the exit
    // code: 0 done, 2 the job has finished, 3 not found, 4 cluster error, 5 timed out.
    int run(Context& ctx) const;
};

// Register the flags suspend and resume share on sub.
void add_change_flags(CLI::App& sub, SuspendOptions& options);

// Register `kftrain suspend`.
void setup_suspend(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
