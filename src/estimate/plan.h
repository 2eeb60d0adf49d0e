#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "estimate/plan_types.h"
#include "estimate/prices.h"
#include "estimate/profile.h"
#include "util/result.h"

namespace kftrain::estimate {

// Resolve the model's input from the job, the flags, the measured profiles (a built-in one
// when there are none; all of one model; repeats at one world size, measured alike, count
// as their median: median_profile) and the price catalog; errors name the flag or field at
// fault. The profile at the smallest world size times compute; one at each larger world
// size gives that size its measured step.
util::Result<Plan> make_plan(const JobFacts& job, const PlanFlags& flags,
                             const std::vector<Profile>& measured, const PriceCatalog& prices);

}  // namespace kftrain::estimate
