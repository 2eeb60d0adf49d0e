#pragma once

#include <string>

#include "cli/job/backend.h"
#include "cli/context.h"

namespace kftrain::cli::job {

// Follow a submitted job as `kftrain logs -f` does (lines prefixed with their
// replica, progress readable) until it ends, then print its state on err;
// return 0 when it Succeeded, 1 when it Failed. Ctrl-C stops following (130)
// and, with stop_on_interrupt, stops the job too.
int follow_job(Backend& backend, const std::string& job, int replicas, bool stop_on_interrupt,
               Context& ctx);

}  // namespace kftrain::cli::job
