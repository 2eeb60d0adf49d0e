#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/cost/job_cost.h"
#include "estimate/plan.h"
#include "estimate/prices.h"
#include "estimate/profile.h"
#include "estimate/report.h"
#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::cli::cost {

// Take what the estimate needs from a loaded job file.
estimate::JobFacts job_facts(const manifest::JobSpec& spec);

// Read the price catalog: the --prices file, else KFTRAIN_PRICES, else the built-in one.
util::Result<estimate::PriceCatalog> load_prices(const std::string& prices_flag);

// Read the price catalog (as load_prices) and check --gpu against it; errors name the flag.
util::Result<Pricing> load_pricing(const std::string& prices_flag, const std::string& gpu_flag);

// Read the profile files; none when paths is empty (the estimate uses a built-in profile).
util::Result<std::vector<estimate::Profile>> load_profiles(const std::vector<std::string>& paths);

// Where the estimate reads its profiles and prices from; empty: built-in.
struct EstimateSources {
    std::vector<std::string> profiles;  // --profile: one or more per world size
    std::string prices;                 // --prices
};

// Load the profile and prices, plan and run the estimate for a job, and make the choice
// the goal asks for; a goal needs prices for the job's device, else an error naming
// goal_flag (the flag that set the goal: --deadline, --budget, --max-cost).
util::Result<estimate::Report> build_report(const manifest::JobSpec& spec,
                                            const estimate::PlanFlags& flags,
                                            const std::optional<estimate::Goal>& goal,
                                            const EstimateSources& sources,
                                            const std::string& goal_flag);

}  // namespace kftrain::cli::cost
