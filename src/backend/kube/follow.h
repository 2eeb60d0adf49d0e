#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backend/kube/kubectl.h"
#include "job/backend.h"
#include "job/status.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// What following sees on each look at the cluster.
struct JobSnapshot {
    job::JobPhase phase = job::JobPhase::Unknown;
    std::vector<job::ReplicaStatus> replicas;
    std::string lead;  // the replica whose log tells the progress: followed among many
};

// Look at the job and its pods again.
using SnapshotSource = std::function<util::Result<JobSnapshot>()>;

// Follow every matching replica's log until the job ends: one stream per pod,
// lines in arrival order, pods that are still pending waited for, restarted
// containers followed again. Of more than job::k_many_replicas (without --all), only the
// lead and those that fail or restart, as a notice says.
util::Status follow_logs(KubectlRunner& kubectl, const std::string& job,
                         const SnapshotSource& snapshot, const job::LogOptions& options,
                         const std::vector<std::string>& namespace_args, const job::LogSink& sink);

}  // namespace kftrain::backend::kube
