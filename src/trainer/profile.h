#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kftrain::trainer {

// Hold what --benchmark measured, for `kftrain estimate`.
struct Profile {
    std::string model;
    std::string dataset;
    int64_t parameters = 0;
    int64_t gradient_bytes = 0;
    int batch_size = 0;
    int threads = 0;
    int world_size = 1;
    int64_t steps = 0;
    double compute_s_per_step = 0;
    double forward_s_per_step = 0;
    double backward_s_per_step = 0;
    double allreduce_s_per_step = 0;
    std::optional<double> allreduce_bandwidth_bytes_per_s;
    std::optional<double> overlap_fraction;
    double samples_per_sec = 0;
};

// Return the profile as the JSON object the estimate feature reads.
nlohmann::ordered_json profile_json(const Profile& p);

// Return the bus bandwidth of an all-reduce of bytes over world ranks taking seconds.
double allreduce_bus_bandwidth(int64_t bytes, int world, double seconds);

// Return the share of all-reduce time hidden behind compute: 0 none, 1 all.
double overlap_fraction(double compute_s, double allreduce_s, double overlapped_step_s);

}  // namespace kftrain::trainer
