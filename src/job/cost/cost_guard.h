#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "job/context.h"
#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::job::cost {

// The flags with which submit refuses a job whose estimated cost exceeds a budget.
struct CostGuard {
    std::string max_cost;  // --max-cost; empty: no check
    std::string profile;   // --profile
    std::string gpu;       // --gpu
    std::string prices;    // --prices
};

// Add --max-cost, --profile, --gpu and --prices to a verb.
void add_cost_guard_flags(CLI::App& sub, CostGuard& guard);

// Check the guard's flags; the error names the flag and the value.
util::Status validate_cost_guard(const CostGuard& guard);

// Estimate the job at its own replicas and, when it costs more than --max-cost, report
// why and return exit code 2; return 0 when within budget or without --max-cost.
int check_cost_guard(const CostGuard& guard, const manifest::JobSpec& spec, job::Context& ctx);

}  // namespace kftrain::job::cost
