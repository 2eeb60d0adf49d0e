#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cost/cost_guard.h"
#include "load/job_input.h"

// The flags several verbs share to name a job file, change it, queue it and bound its cost:
// registered here once, so each reads and helps the same in every verb.
namespace kftrain::cli {

// Add -f/--file (a path, or - for standard input) and --set to a verb that reads a job file.
void add_job_file_flags(CLI::App& sub, load::JobInput& input);

// Add -f/--file, --set, --kind and --template to a verb that renders the job.
void add_job_input_flags(CLI::App& sub, load::JobInput& input);

// Add --queue and --priority-class (Kueue) to a verb that renders the job.
void add_queue_flags(CLI::App& sub, load::JobInput& input);

// Add --retries (the job's retry budget, manifest/retries.h); run_default: the help names
// kftrain run's default.
void add_retries_flag(CLI::App& sub, load::JobInput& input, bool run_default = false);

// Add --env-from-shell (local runs: variables of kftrain's shell every replica gets).
void add_env_from_shell_flag(CLI::App& sub, std::vector<std::string>& names);

// Add --max-cost, --profile, --gpu and --prices to a verb.
void add_cost_guard_flags(CLI::App& sub, cost::CostGuard& guard);

}  // namespace kftrain::cli
