#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "util/result.h"

namespace kftrain::util {

// How long a pipe, FIFO or standard input may go without data (or without ending) before a
// read of it gives up: a FIFO nothing writes to, or a pipe its writer never closes.
inline constexpr std::chrono::seconds k_read_idle_limit{30};

// Read a whole file of at most max_bytes: the one reader of files kftrain did not write in
// this call (job files, catalogs, profiles, a job's state). Reading stops one byte past the
// limit, so /dev/zero or a huge file ends at once; a FIFO or pipe (`-f <(envsubst < job.yaml)`)
// is read as it comes, and one that gives nothing for k_read_idle_limit is an error. Errors
// name the path: "PATH: is a directory, not a file", "PATH: cannot read: WHY", "PATH: larger
// than N KiB" followed by "; " and too_large_hint when one is given, "PATH: nothing came for
// 30 s ...".
Result<std::string> read_file(const std::string& path, std::size_t max_bytes,
                              const std::string& too_large_hint = "");

// Read fd to its end, at most max_bytes + 1 bytes (one past the limit: the caller says it is
// too large), waiting at most idle for each piece. Errors say "cannot read: WHY" or "nothing
// came for N s ..." without naming what was read: the caller does.
Result<std::string> read_stream(int fd, std::size_t max_bytes, std::chrono::milliseconds idle);

}  // namespace kftrain::util
