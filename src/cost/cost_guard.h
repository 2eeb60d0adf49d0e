#pragma once

#include <optional>
#include <string>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::cost {

// The flags with which submit refuses a job whose estimated cost exceeds a budget.
struct CostGuard {
    std::string max_cost;  // --max-cost; empty: no check
    std::string profile;   // --profile
    std::string gpu;       // --gpu
    std::string prices;    // --prices
};

// Check the guard's flags; the error names the flag and the value.
util::Status validate_cost_guard(const CostGuard& guard);

// Estimate the job at its own replicas (priced as run here when runs_here: job::asks_local) and,
// when it costs more than --max-cost, return why (exit code 2); within budget, the estimated
// amount (submit stamps it on a cluster job), none without --max-cost or a price.
util::Result<std::optional<double>> check_cost_guard(const CostGuard& guard,
                                                     const manifest::JobSpec& spec, bool runs_here);

}  // namespace kftrain::cost
