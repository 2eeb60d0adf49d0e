#pragma once

#include <string>

#include "backend/local/local_backend.h"
#include "manifest/job_spec.h"
#include "tune/search_status.h"
#include "tune/suggest.h"

namespace kftrain::backend::local {

// Look at a running trial's local job and, when it has ended, record how: Succeeded with the
// objective read from its lead replica's metric lines (reduced as Katib does),
// MetricsUnavailable when it printed none, Failed with the job's reason; and its times.
// Return whether it ended. search gives the objective and its direction.
bool refresh_trial(backend::local::LocalBackend& jobs, kftrain::tune::TrialRecord& trial,
                   const kftrain::tune::SearchStatus& search);

}  // namespace kftrain::backend::local
