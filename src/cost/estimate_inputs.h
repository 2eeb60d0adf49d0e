#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cost/job_cost.h"
#include "estimate/plan.h"
#include "estimate/prices.h"
#include "estimate/profile.h"
#include "estimate/program/profile.h"
#include "estimate/report.h"
#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::cost {

// Take what the estimate needs from a loaded job file.
estimate::JobFacts job_facts(const manifest::JobSpec& spec);

// Read the price catalog: the --prices file, else KFTRAIN_PRICES, else the built-in one.
util::Result<estimate::PriceCatalog> load_prices(const std::string& prices_flag);

// Read the price catalog (as load_prices) and check --gpu against it; errors name the flag.
util::Result<Pricing> load_pricing(const std::string& prices_flag, const std::string& gpu_flag);

// The profiles --profile names: the trainer's, or one a program's measurement wrote.
struct LoadedProfiles {
    std::vector<estimate::Profile> trainer;
    std::optional<estimate::ProgramProfile> program;
};

// Read --profile files of either kind: refused, naming the files, when both kinds are
// given or more than one program profile.
util::Result<LoadedProfiles> load_profile_files(const std::vector<std::string>& paths);

// Where the estimate reads its profiles and prices from; empty: built-in.
struct EstimateSources {
    std::vector<std::string> profiles;  // --profile: one or more per world size
    std::string prices;                 // --prices
};

// Load the profile and prices, plan and run the estimate for a job, and make the choice
// the goal asks for. A program's profile (--profile, else the one saved by an earlier
// `estimate --measure` of the job with its program and settings as they are) predicts from
// what was measured; without one, a job that runs its own program is refused (exit 2),
// naming both ways to get one, as the built-in profiles describe only kftrain-trainer; a goal needs
// prices for the job's device, else an error naming goal_flag (the flag that set the goal:
// --deadline, --budget, --max-cost).
util::Result<estimate::Report> build_report(const manifest::JobSpec& spec,
                                            const estimate::PlanFlags& flags,
                                            const std::optional<estimate::Goal>& goal,
                                            const EstimateSources& sources,
                                            const std::string& goal_flag);

}  // namespace kftrain::cost
