#pragma once

#include <string>
#include <vector>

#include "staging/listing.h"
#include "util/result.h"

namespace kftrain::staging {

// List what is under dir, paths relative to it, sorted; symlinks are listed, not followed.
util::Result<Listing> list_directory(const std::string& dir);

// Return the names directly in dir, sorted (what tar is given to archive).
util::Result<std::vector<std::string>> top_level_names(const std::string& dir);

}  // namespace kftrain::staging
