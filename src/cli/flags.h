#pragma once

#include <string>
#include <vector>

#include "job/backend.h"
#include "util/result.h"

namespace kftrain::cli {

// Shared checks of flag values, so every verb rejects the same bad value with the same words.
// (-o/--output is view::parse_output_format.)

// Return the values --dry-run takes: client, server (what shell completion offers).
std::vector<std::string> dry_run_values();

// Parse --dry-run: "" (the flag alone) or client prints only, server asks the API server.
// "--dry-run: must be client or server (got x)" otherwise.
util::Result<job::DryRun> parse_dry_run(const std::string& text);

// Parse a flag that takes a positive duration (--interval 5s, --poll-interval 2s), in
// seconds; the error names the flag, an example and the value.
util::Result<double> parse_interval(const std::string& flag, const std::string& text,
                                    const std::string& example);

}  // namespace kftrain::cli
