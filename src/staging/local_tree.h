#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "staging/listing.h"
#include "util/result.h"

namespace kftrain::staging {

// List what is under dir, paths relative to it, sorted; symlinks are listed, not followed.
util::Result<Listing> list_directory(const std::string& dir);

// Say on warn, one "kftrain: warning:" line each, what a listing left out (the first 10, then
// how many more), names escaped.
void warn_left_out(const Listing& listing, std::ostream& warn);

// Return the names directly in dir, sorted (what tar is given to archive).
util::Result<std::vector<std::string>> top_level_names(const std::string& dir);

}  // namespace kftrain::staging
