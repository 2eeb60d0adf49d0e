#pragma once

#include <ctime>
#include <ostream>

#include "job/status.h"

namespace kftrain::cli::view {

// Print a large job's replicas as a summary (docs/scale.md): a row per type with the count in
// each state and the restarts, then those not well (at most a screenful, with how many more),
// then the replica that failed first.
void print_replica_summary(std::ostream& out, const job::JobStatus& status, std::time_t now);

}  // namespace kftrain::cli::view
