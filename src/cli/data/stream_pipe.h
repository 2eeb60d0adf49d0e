#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "util/result.h"
#include "util/subprocess.h"

namespace kftrain::cli::data {

// How a `from | to` pipeline ended.
struct PipeResult {
    util::ExitStatus from;
    util::ExitStatus to;
    std::string from_err;  // the last 64 KiB of each one's stderr
    std::string to_err;
    uint64_t bytes = 0;      // what passed from one to the other
    bool cancelled = false;  // stopped because cancelled() said so
};

// Run `from | to` with kftrain in the middle, so it can count the bytes: on_bytes gets the
// running total as data passes, cancelled() is asked every 100 ms (true: both process groups
// are killed). When `to` stops reading, `from` is killed. Both run in groups of their own, so
// kftrain's own end takes them along.
util::Result<PipeResult> run_pipe(const std::vector<std::string>& from,
                                  const std::vector<std::string>& to,
                                  const std::function<void(uint64_t)>& on_bytes,
                                  const std::function<bool()>& cancelled);

}  // namespace kftrain::cli::data
