#pragma once

#include <string>

#include "cli/local/job_state.h"
#include "cli/local/replica_env.h"
#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::cli::local {

// Where and when a job is planned: the facts of this machine plan_job needs.
struct PlanContext {
    std::string self_dir;  // directory of the running kftrain (for kftrain-trainer)
    std::string cwd;       // where the replicas run
    Ports ports;
    std::string now;  // RFC 3339, the creation time
};

// Make the state of a new job: one replica per pod with its argv and
// environment, the restart rules, phase Created. Errors (exit 2) when the
// command cannot be found.
util::Result<JobState> plan_job(const manifest::JobSpec& spec, const PlanContext& context);

}  // namespace kftrain::cli::local
