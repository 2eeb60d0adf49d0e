#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kftrain::diagnose {

// A rank that computes its steps markedly slower than the others, holding every rank back at
// each all-reduce.
struct Straggler {
    int rank = 0;
    double step_s = 0;    // its compute seconds per step
    double median_s = 0;  // the median over every rank
    double ratio = 0;     // step_s / median_s
};

// How much slower than the median a rank must be to be called a straggler.
inline constexpr double k_straggler_ratio = 1.2;

// Return the slowest rank of rank_step_s (each rank's compute seconds per step, by rank) when
// it is more than k_straggler_ratio times the median; nullopt with fewer than 2 ranks or none
// that slow.
std::optional<Straggler> find_straggler(const std::vector<double>& rank_step_s);

// Describe a straggler in one line: "rank 3 computes a step in 410ms, 1.8x the median 230ms".
std::string describe_straggler(const Straggler& straggler);

}  // namespace kftrain::diagnose
