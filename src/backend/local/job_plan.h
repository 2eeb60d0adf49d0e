#pragma once

#include <string>

#include "backend/local/process/replica_env.h"
#include "backend/local/state/job_state.h"
#include "load/job_input.h"
#include "util/result.h"

namespace kftrain::backend::local {

// Where and when a job is planned: the facts of this machine plan_job needs.
struct PlanContext {
    std::string self_dir;  // directory of the running kftrain (for kftrain-trainer)
    std::string cwd;       // where the replicas run
    Ports ports;
    std::string now;       // RFC 3339, the creation time
    long long now_ns = 0;  // the same moment in nanoseconds since the epoch: a queued job's place
};

// Make the state of a new job from its rendered manifest: one replica per pod, running what
// the manifest's container of its type says (command, args, plain env, with volume paths
// mapped to their localPath) plus the variables the operator adds; the restart rules; phase
// Created. Errors (exit 2) name the manifest path, or the command that cannot be found.
util::Result<JobState> plan_job(const job::RenderedJob& job, const PlanContext& context);

}  // namespace kftrain::backend::local
