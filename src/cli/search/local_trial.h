#pragma once

#include <string>

#include "cli/local/local_backend.h"
#include "manifest/job_spec.h"
#include "tune/search_status.h"
#include "tune/suggest.h"

namespace kftrain::cli::search {

// Return the job of one trial: a copy of the search's job named name, with each tuned
// trainer key set to its value, metricLines on, and checkpointDir (when set) made
// <checkpointDir>/<name> so trials never resume each other's checkpoints. A job with its own
// command takes no trainer flags: it is only renamed.
manifest::JobSpec make_trial_spec(const manifest::JobSpec& job, const std::string& name,
                                  const kftrain::tune::Assignment& values);

// Look at a running trial's local job and, when it has ended, record how: Succeeded with the
// objective read from its lead replica's metric lines (reduced as Katib does),
// MetricsUnavailable when it printed none, Failed with the job's reason; and its times.
// Return whether it ended. search gives the objective and its direction.
bool refresh_trial(local::LocalBackend& jobs, kftrain::tune::TrialRecord& trial,
                   const kftrain::tune::SearchStatus& search);

}  // namespace kftrain::cli::search
