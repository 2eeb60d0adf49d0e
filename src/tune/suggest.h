#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tune/param_space.h"
#include "util/result.h"

namespace kftrain::tune {

// One trial's values, in the order of the search's parameters: (name, value as text).
using Assignment = std::vector<std::pair<std::string, std::string>>;

// Return the values grid search tries for one parameter, in order: a list's values, an int
// range by its step (default 1), a double range by its step (required: an error naming the
// parameter when there is none). Like Katib's grid, a range steps evenly from min to max
// (the last point at most max), on a log range too. A grid of over a million points is an
// error.
util::Result<std::vector<std::string>> grid_points(const Param& param);

// Return how many points the grid of these parameters has (the product of their counts),
// capped at INT64_MAX.
util::Result<std::int64_t> grid_size(const std::vector<Param>& params);

// Return a search's default seed: a hash of its name, so the same search draws the same
// trials again.
std::uint64_t default_seed(const std::string& search_name);

// Proposes trial values for the local search, as Katib's suggestion services do for the
// cluster: random draws (uniform, or log-uniform for log ranges; seeded, so a search is
// repeatable) or the grid in order.
class Suggester {
  public:
    // Make a suggester for an algorithm that runs locally (random or grid).
    static util::Result<Suggester> make(const std::string& algorithm,
                                        const std::vector<Param>& params, std::uint64_t seed);
    // Return the values of the next trial, or nullopt when the grid is exhausted.
    std::optional<Assignment> next();
    // Return how many trials next() has proposed.
    std::int64_t proposed() const { return m_next; }

  private:
    Suggester(std::vector<Param> params, bool grid, std::uint64_t seed);
    std::string draw(const Param& param);
    Assignment grid_at(std::int64_t index) const;

    std::vector<Param> m_params;
    bool m_grid = false;
    std::vector<std::int64_t> m_counts;  // grid: points per parameter
    std::int64_t m_size = 0;             // grid: all points
    std::int64_t m_next = 0;
    std::mt19937_64 m_rng;
};

}  // namespace kftrain::tune
