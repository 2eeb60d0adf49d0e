#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "job/claim.h"

namespace kftrain::staging {

using job::Entry;
using job::Listing;

// The `stat -c` format of a listing's records: token, type, size, mtime and name, by tabs. The
// token is a random word the listing picks, which no file name in the claim can foresee: a
// record starts only at a line that begins with it, so a newline in a name forges no entry.
std::string stat_format(const std::string& token);

// Read the records `find BASE -exec stat -c stat_format(token) {} +` prints into entries
// relative to base, sorted by path; the record of base itself says whether it is a directory.
// A name runs to the next record (newlines and tabs in it kept); records that are not five
// tab-separated fields are skipped.
Listing parse_stat_records(const std::string& text, const std::string& base,
                           const std::string& token);

// Return a byte count readably: "512 B", "1.5 KiB", "12.0 MiB", "3.2 GiB".
std::string format_bytes(uint64_t bytes);

}  // namespace kftrain::staging
