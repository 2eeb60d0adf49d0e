#include "estimate/range/range.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/stats.h"

namespace kftrain::estimate {

Spread block_spread(const std::vector<double>& block_times, double reference) {
    Spread s;
    std::vector<double> times;
    for (double t : block_times) {
        if (std::isfinite(t) && t > 0) {
            times.push_back(t);
        }
    }
    s.blocks = static_cast<int>(times.size());
    if (!s.known() || !(reference > 0) || !std::isfinite(reference)) {
        s.blocks = std::min(s.blocks, k_min_range_blocks - 1);
        return s;
    }
    s.low = std::min(1.0, util::percentile(times, k_range_low_percentile) / reference);
    s.high = std::max(1.0, util::percentile(times, k_range_high_percentile) / reference);
    return s;
}

std::optional<Range> time_range(double total_s, double unmeasured_s, const Spread& spread) {
    if (!spread.known()) {
        return std::nullopt;
    }
    const double measured = std::max(0.0, total_s - std::max(0.0, unmeasured_s));
    const double low = std::max(0.0, spread.low - k_range_margin);
    const double high = spread.high + k_range_margin;
    return Range{total_s - (1 - low) * measured, total_s + (high - 1) * measured};
}

Range scaled_range(const Range& time, double total_s, double value) {
    if (!(total_s > 0)) {
        return {value, value};
    }
    return {value * time.low / total_s, value * time.high / total_s};
}

void note_spread(Steadiness& s, const Spread& spread, const std::string& of) {
    const bool wider = spread.known() && (!s.spread.known() || spread.width() > s.spread.width());
    if (!s.any || wider) {
        s.spread = spread;
        s.of = of;
        s.any = true;
    }
}

std::string range_rule() {
    return fmt::format(
        "the {:g}th to {:g}th percentile of the measured blocks' times over the figure used, "
        "widened by {:g}% either side",
        k_range_low_percentile, k_range_high_percentile, k_range_margin * 100);
}

}  // namespace kftrain::estimate
