#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

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

}  // namespace kftrain::trainer
