#pragma once

// A TrainJob's retry budget on a cluster: the TrainingRuntime derived from the cluster's own
// copy of the job's runtime (load/derived_runtime.h), applied before the TrainJob that refers
// to it, owned by the TrainJob once it exists.

#include <nlohmann/json.hpp>
#include <string>

#include "backend/kube/owner.h"
#include "backend/kube/queries.h"
#include "job/rendered_job.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// What apply_budget_runtime did.
struct RuntimeApplied {
    std::string name;       // the derived TrainingRuntime's; "" when the job needs none
    bool created = false;   // it did not exist before (removed again if the job is refused)
    nlohmann::json owners;  // the owners an identical one already had
};

// For a TrainJob with a retry budget: read its runtime from the cluster, derive the
// TrainingRuntime of the budget, point job.manifest's runtimeRef at it and apply it (an
// identical one of the same name is reused); with dry_run_server, only as a server-side dry
// run. Nothing for another job. An error names the runtime (exit 3 when the cluster has none of
// that name).
util::Result<RuntimeApplied> apply_budget_runtime(KubeQueries& queries, job::RenderedJob& job,
                                                  bool dry_run_server);

// Make the job the owner of the runtime apply_budget_runtime applied.
util::Status own_budget_runtime(KubeQueries& queries, const RuntimeApplied& runtime,
                                const Owner& owner);

// Remove a runtime apply_budget_runtime created for a job that could not be submitted.
void remove_budget_runtime(KubeQueries& queries, const RuntimeApplied& runtime);

}  // namespace kftrain::backend::kube
