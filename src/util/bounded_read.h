#pragma once

#include <cstddef>
#include <string>

#include "util/result.h"

namespace kftrain::util {

// Read a whole file of at most max_bytes: the one reader of files kftrain did not write in
// this call (job files, catalogs, profiles, a job's state). Reading stops one byte past the
// limit, so /dev/zero or a huge file ends at once. Errors name the path: "PATH: is a
// directory, not a file", "PATH: cannot read: WHY", "PATH: larger than N KiB" followed by
// "; " and too_large_hint when one is given.
Result<std::string> read_file(const std::string& path, std::size_t max_bytes,
                              const std::string& too_large_hint = "");

}  // namespace kftrain::util
