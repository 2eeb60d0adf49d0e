#pragma once

#include <string>
#include <vector>

#include "job/data/listing.h"
#include "util/result.h"

namespace kftrain::job::data {

// List what is under dir, paths relative to it, sorted; symlinks are listed, not followed.
util::Result<Listing> list_directory(const std::string& dir);

// Return the names directly in dir, sorted (what tar is given to archive).
util::Result<std::vector<std::string>> top_level_names(const std::string& dir);

}  // namespace kftrain::job::data
