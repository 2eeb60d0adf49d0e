#pragma once

#include <ctime>
#include <set>
#include <string>

#include "history/store.h"
#include "job/context.h"
#include "job/status.h"
#include "util/result.h"

namespace kftrain::cli {

// What history, prune and cost share of their flags.

// Parse --state: a comma list of Succeeded and Failed (any case); "" is both. The error names
// the flag and the value ("--state: must be Succeeded or Failed, or both as Succeeded,Failed
// (got Running)").
util::Result<std::set<job::JobPhase>> parse_states(const std::string& text);

// Parse a duration flag that looks into the past (--since, --older-than): days allowed
// ("7d"); the error names the flag and the value. "" is none (0).
util::Result<double> parse_age_flag(const std::string& flag, const std::string& text);

// Return which records history and cost read: every context's (--all-contexts, no kubectl
// asked), else the current context's, in its namespace unless all_namespaces (-A).
history::Filter records_filter(const job::BackendOptions& global, bool all_contexts,
                               bool all_namespaces);

// Return a finished time (RFC 3339) as an age, as list shows one ("3d4h"); "-" when unknown.
std::string age_text(const std::string& finished, std::time_t now);

}  // namespace kftrain::cli
