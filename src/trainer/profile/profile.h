#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "wire/profile_fields.h"

namespace kftrain::trainer {

// What --benchmark measured, in the fields `kftrain estimate` reads.
using Profile = wire::ProfileFields;

// Return the profile as the JSON object the estimate feature reads.
nlohmann::ordered_json profile_json(const Profile& p);

// Return the bus bandwidth of an all-reduce of bytes over world ranks taking seconds.
double allreduce_bus_bandwidth(int64_t bytes, int world, double seconds);

// Return the share of all-reduce time hidden behind compute: 0 none, 1 all.
double overlap_fraction(double compute_s, double allreduce_s, double overlapped_step_s);

// Return the mean and the standard deviation of step times in seconds.
struct StepStats {
    double mean = 0;
    double stddev = 0;
};
StepStats step_stats(const std::vector<double>& seconds);

// Return whether warm-up is over after these step times: at least min_steps, the last two
// within 10% of each other, or max_steps run.
bool warmed_up(const std::vector<double>& seconds, std::size_t min_steps, std::size_t max_steps);

// Return the means of these measured steps over blocks of consecutive steps lasting about
// block_s each (the last block takes the steps left over; at least 3 blocks where there are 3
// steps); their plain mean alone below 3 steps, none for none.
std::vector<double> block_means(const std::vector<double>& seconds, double block_s);

// Return the typical time of these measured steps: the median of their means over blocks of
// consecutive steps lasting about block_s each (the last block takes the steps left over),
// so that a slow spell of the machine over a few blocks does not move it, while the
// occasional slow step inside every block still counts. The plain mean below 3 blocks.
double typical_step_s(const std::vector<double>& seconds, double block_s);

}  // namespace kftrain::trainer
