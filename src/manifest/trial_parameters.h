#pragma once

#include <map>
#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::manifest {

// Katib's placeholder for a trial's value, as a job file writes it in command, args or env:
// ${trialParameters.NAME}. `kftrain tune` fills it per trial (Katib does on a cluster);
// render and submit only with --set trialParameters.NAME=VALUE.
inline constexpr const char* k_placeholder_open = "${trialParameters.";

// The --set key that fills a placeholder for render and submit: trialParameters.NAME=VALUE.
inline constexpr const char* k_placeholder_set_prefix = "trialParameters.";

// One placeholder a job file uses: its name and where it first appears ("args[3]",
// "command[1]", "env.LR"), a path SourceMap::locate names.
struct Placeholder {
    std::string name;
    std::string field;
};

// Return ${trialParameters.NAME}.
std::string placeholder_text(const std::string& name);

// Return the placeholders the job uses in command, args and env values, each name once, in
// the order they first appear. A malformed one (no name, no closing '}', a name of other
// characters than letters, digits, '_' and '-') is an error naming where it is.
util::Result<std::vector<Placeholder>> find_placeholders(const JobSpec& job);

// Return the job with each ${trialParameters.NAME} of a name in values replaced by its value
// in command, args and env values; placeholders of other names stay.
JobSpec fill_placeholders(const JobSpec& job, const std::map<std::string, std::string>& values);

// Split --set's assignments into those that fill placeholders (trialParameters.NAME=VALUE, by
// name) and the job-file keys, which stay in sets. An empty NAME is an error naming the flag.
util::Result<std::map<std::string, std::string>> take_placeholder_sets(
    std::vector<std::string>& sets);

// Fill the placeholders --set gave values for; a name the job file does not use is an error
// naming the flag.
util::Result<JobSpec> apply_placeholder_sets(const JobSpec& job,
                                             const std::map<std::string, std::string>& values);

// Refuse a job that still holds placeholders, for render and submit: only `kftrain tune`
// fills them. The message names each one, where it is, and the --set that fills it.
util::Status require_no_placeholders(const JobSpec& job);

}  // namespace kftrain::manifest
