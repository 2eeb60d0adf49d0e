#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "util/result.h"

namespace kftrain::estimate {

// What one replica's training step costs: measured by `kftrain-trainer --benchmark`
// or computed from a built-in model description.
struct Profile {
    std::string model;
    std::string dataset;
    int64_t parameters = 0;
    int64_t gradient_bytes = 0;
    int batch_size = 0;
    int threads = 0;
    int world_size = 1;
    int64_t steps = 0;
    double compute_s_per_step = 0;  // forward + backward + optimizer
    double forward_s_per_step = 0;
    double backward_s_per_step = 0;
    double allreduce_s_per_step = 0;
    std::optional<double> allreduce_bandwidth_bytes_per_s;  // unset at world size 1
    std::optional<double> overlap_fraction;                 // unset at world size 1
    double samples_per_sec = 0;
    std::string trainer_version;
    std::string source;    // the file it was read from, or "built-in"
    bool measured = true;  // false for a built-in profile
};

// Parse the profile JSON the trainer writes; source names the file in messages
// ("profile.json: compute_s_per_step: must be a number > 0 (got \"fast\")").
util::Result<Profile> parse_profile(const std::string& text, const std::string& source);

}  // namespace kftrain::estimate
