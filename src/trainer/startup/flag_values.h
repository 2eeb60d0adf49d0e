#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::trainer {

// Convert a flag value to an integer in [min, max]; the error names the flag and value.
util::Result<int64_t> flag_int(const std::string& flag, const std::string& raw, int64_t min,
                               int64_t max = INT32_MAX);

// Convert a flag value to a number >= min (or > min when exclusive) and <= max.
util::Result<double> flag_double(const std::string& flag, const std::string& raw, double min,
                                 bool exclusive, double max = 1e30);

// Convert a flag value "auto" (to 0) or a number from min (above 0) to max.
util::Result<double> flag_auto_or_positive(const std::string& flag, const std::string& raw,
                                           double min, double max);

// Convert a flag value "true" or "false" to a bool.
util::Result<bool> flag_bool(const std::string& flag, const std::string& raw);

// Check that a flag value is one of choices.
util::Result<std::string> flag_choice(const std::string& flag, const std::string& raw,
                                      const std::vector<std::string>& choices);

}  // namespace kftrain::trainer
