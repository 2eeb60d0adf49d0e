#include "diagnose/stragglers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kftrain::diagnose {
namespace {

std::string seconds_text(double s) {
    return s < 1 ? fmt::format("{:.0f}ms", s * 1000) : fmt::format("{:.2f}s", s);
}

}  // namespace

std::optional<Straggler> find_straggler(const std::vector<double>& rank_step_s) {
    if (rank_step_s.size() < 2) {
        return std::nullopt;
    }
    for (double s : rank_step_s) {
        if (!std::isfinite(s) || s < 0) {
            return std::nullopt;  // not a report to judge by
        }
    }
    std::vector<double> sorted = rank_step_s;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    const double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    auto slowest = std::max_element(rank_step_s.begin(), rank_step_s.end());
    if (median <= 0 || *slowest <= k_straggler_ratio * median) {
        return std::nullopt;
    }
    return Straggler{static_cast<int>(slowest - rank_step_s.begin()), *slowest, median,
                     *slowest / median};
}

std::string describe_straggler(const Straggler& s) {
    return fmt::format("rank {} computes a step in {}, {:.1f}x the median {}", s.rank,
                       seconds_text(s.step_s), s.ratio, seconds_text(s.median_s));
}

}  // namespace kftrain::diagnose
