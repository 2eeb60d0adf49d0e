#pragma once

#include <ctime>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/local/state/job_state.h"
#include "job/description.h"

namespace kftrain::backend::local {

// Return the longer account `describe` shows (a local job has no summary above it): the job's
// fields, then each replica's, with the variables its operator would have set.
std::vector<job::DescribePart> describe_parts(const JobState& state, const job::JobStatus& status);

// Return what describe_parts shows as data (describe -o json|yaml): the status -o json document
// with the state and logs directories, working directory, supervisor, restart policy and
// backoff limit, and each replica's started, finished, command and injected environment
// (credentials masked, as in the text).
nlohmann::json describe_data(const JobState& state, const job::JobStatus& status, std::time_t now);

}  // namespace kftrain::backend::local
