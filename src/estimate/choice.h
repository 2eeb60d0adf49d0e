#pragma once

#include <cstddef>
#include <optional>

#include "estimate/model.h"

namespace kftrain::estimate {

// Return the index of the cheapest size that finishes within deadline_s (of equal costs,
// the faster); nullopt when none does or the estimate has no prices.
std::optional<std::size_t> cheapest_within_deadline(const Estimate& estimate, double deadline_s);

// Return the index of the fastest size that costs at most budget (of equal times, the
// cheaper); nullopt when none does or the estimate has no prices.
std::optional<std::size_t> fastest_within_budget(const Estimate& estimate, double budget);

}  // namespace kftrain::estimate
