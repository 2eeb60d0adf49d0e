#pragma once

#include <ctime>
#include <optional>
#include <vector>

#include "cost/job_cost.h"
#include "job/status.h"
#include "tune/search_status.h"

namespace kftrain::search {

// Price a search as `kftrain status` prices a job: each trial's job (trial_jobs, parallel
// to status.trials: its replicas' requests and the trial's start and finish) for the time
// it ran, and the whole search as their sum. The basis is what one trial costs an hour,
// read from template_job (else the first trial's job): "$0.24/h per trial (3 replicas x
// $0.08/h each (2 cores, 4 GiB))". When the trials cannot be priced (requests unknown, GPU
// type unknown, no price), the costs are left empty: no error.
void price_search(kftrain::tune::SearchStatus& status,
                  const std::vector<job::JobStatus>& trial_jobs,
                  const std::optional<job::JobStatus>& template_job, const cost::Pricing& pricing,
                  std::time_t now);

}  // namespace kftrain::search
