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

// Return the help of a flag that takes a duration: what it does, then the forms every
// duration flag takes ("How often to look at the job (a duration: 90s, 1h30m, 500ms)").
std::string duration_help(const std::string& what);

}  // namespace kftrain::cli
