#pragma once

#include <string>

#include "util/result.h"
#include "wire/profile_fields.h"

namespace kftrain::estimate {

// A profile as the estimate uses it: measured by `kftrain-trainer --benchmark` or computed
// from a built-in model description.
struct Profile : wire::ProfileFields {
    std::string trainer_version;
    std::string source;    // the file it was read from, or "built-in"
    bool measured = true;  // false for a built-in profile
};

// Parse the profile JSON the trainer writes; source names the file in messages
// ("profile.json: compute_s_per_step: must be a number > 0 (got \"fast\")").
util::Result<Profile> parse_profile(const std::string& text, const std::string& source);

}  // namespace kftrain::estimate
