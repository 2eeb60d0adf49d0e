#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kftrain::estimate {

// The rule of an estimate's range (docs/estimate.md#the-range): a measurement's blocks (of
// steps, or between progress reports) each give a time per unit of work; their 10th and 90th
// percentiles over the figure the estimate used, widened by k_range_margin either side, scale
// the measured part of the predicted time into its low and high end. The margin is for what
// the blocks of a short measurement cannot see, the machine's slower or faster spells longer
// than it: repeated profiles on this project's 2-core VM varied with a standard deviation of
// 9% or more (docs/benchmarks-estimate.md), and 1.645 of those hold 90% of a normal spread.
inline constexpr double k_range_low_percentile = 10;
inline constexpr double k_range_high_percentile = 90;
inline constexpr double k_range_margin = 0.15;
// Fewer blocks than this show no spread: no range.
inline constexpr int k_min_range_blocks = 3;
// Blocks further apart than this (90th less 10th percentile, over the figure used) say that
// the machine's speed changed too much while it was measured to trust the estimate.
inline constexpr double k_unsteady_spread = 0.25;

// How far apart a measurement's blocks ran, as factors of the time per unit of work that the
// estimate used: low <= 1 <= high.
struct Spread {
    int blocks = 0;   // blocks measured; below k_min_range_blocks the spread is unknown
    double low = 1;   // the 10th percentile of the blocks' times over the figure used
    double high = 1;  // the 90th percentile over it

    // Return whether enough blocks were measured to show a spread.
    bool known() const { return blocks >= k_min_range_blocks; }
    // Return how far apart the blocks ran: high - low.
    double width() const { return high - low; }
    // Return whether the blocks ran too far apart to trust (k_unsteady_spread).
    bool unsteady() const { return known() && width() > k_unsteady_spread; }
};

// Return the spread of blocks' times per unit of work (each > 0) around the figure an
// estimate used (reference > 0); unknown (blocks below k_min_range_blocks) from too few.
Spread block_spread(const std::vector<double>& block_times, double reference);

// The low and high end of a predicted figure.
struct Range {
    double low = 0;
    double high = 0;
};

// Return the range of a predicted total_s of which unmeasured_s (scheduling, given or
// assumed) was not measured: the rest scaled by the spread's factors widened by
// k_range_margin. None when the spread is unknown.
std::optional<Range> time_range(double total_s, double unmeasured_s, const Spread& spread);

// Return a range scaled as a figure proportional to the time is (a cost): value x low / total
// to value x high / total.
Range scaled_range(const Range& time, double total_s, double value);

// The widest spread an estimate used, and what it measured.
struct Steadiness {
    Spread spread;
    std::string of;  // "compute per step at world size 1", "the program at 2 replicas"
    bool any = false;
};

// Keep in s the wider of its spread and this one (an unknown one counts only when s has none).
void note_spread(Steadiness& s, const Spread& spread, const std::string& of);

// State the rule: "the 10th to 90th percentile of the measured blocks' times over the figure
// used, widened by 15% either side".
std::string range_rule();

}  // namespace kftrain::estimate
