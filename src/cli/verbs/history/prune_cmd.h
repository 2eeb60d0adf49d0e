#pragma once

#include <CLI/CLI.hpp>
#include <ctime>
#include <set>
#include <string>
#include <vector>

#include "cli/context.h"
#include "job/status.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain prune` takes.
struct PruneOptions {
    std::string older_than;  // --older-than: finished longer ago than this (required)
    std::string state;       // --state: Succeeded, Failed, or both
    bool all_namespaces = false;
    bool dry_run = false;

    // Derived by validate().
    double older_than_s = 0;
    std::set<job::JobPhase> states;

    // Nothing to derive from the world: the backend is chosen when it runs.
    util::Status complete(const Context& ctx);
    // Parse --older-than (required) and --state; the message names the flag and the value.
    util::Status validate();
    // Delete (or with --dry-run name) the finished jobs older than --older-than; return the
    // exit code.
    int run(Context& ctx) const;
};

// Return the jobs prune deletes: finished in one of states, their finished time older_than_s
// or more before now; a job with no finished time is never one (skipped counts them).
std::vector<job::JobStatus> prunable_jobs(const std::vector<job::JobStatus>& jobs,
                                          const std::set<job::JobPhase>& states,
                                          double older_than_s, std::time_t now, int& skipped);

// Register `kftrain prune`.
void setup_prune(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
