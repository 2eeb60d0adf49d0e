#include "estimate/choice.h"

namespace kftrain::estimate {
namespace {

bool less(double a, double b) {
    return clearly_less(a, b);
}

// Return whether a and b are equal within rounding.
bool same(double a, double b) {
    return !less(a, b) && !less(b, a);
}

}  // namespace

std::optional<std::size_t> cheapest_within_deadline(const Estimate& e, double deadline_s) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < e.sizes.size(); ++i) {
        const SizeEstimate& s = e.sizes[i];
        if (!s.cost || s.total_s > deadline_s) {
            continue;
        }
        if (!best) {
            best = i;
            continue;
        }
        const SizeEstimate& b = e.sizes[*best];
        if (less(*s.cost, *b.cost) || (same(*s.cost, *b.cost) && less(s.total_s, b.total_s))) {
            best = i;
        }
    }
    return best;
}

std::optional<std::size_t> fastest_within_budget(const Estimate& e, double budget) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < e.sizes.size(); ++i) {
        const SizeEstimate& s = e.sizes[i];
        if (!s.cost || *s.cost > budget) {
            continue;
        }
        if (!best) {
            best = i;
            continue;
        }
        const SizeEstimate& b = e.sizes[*best];
        if (less(s.total_s, b.total_s) || (same(s.total_s, b.total_s) && less(*s.cost, *b.cost))) {
            best = i;
        }
    }
    return best;
}

}  // namespace kftrain::estimate
