#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/backend.h"
#include "cli/job_status.h"
#include "cli/kubectl.h"
#include "util/result.h"

namespace kftrain::cli {

// Replicas read at once when not following (following opens one stream per pod).
constexpr size_t k_log_parallelism = 16;

// Return the kubectl arguments that read one pod's log ("logs POD -c pytorch ...").
std::vector<std::string> log_args(const std::string& pod, const LogOptions& options,
                                  const std::vector<std::string>& namespace_args);

// Explain a failed `kubectl logs`: kubectl's line, with a hint only for
// cluster-wide causes (unreachable, forbidden, context), never "rejected".
std::string explain_log_error(const std::string& stderr_text, const std::string& action);

// Read the logs of these replicas concurrently (at most parallelism at a
// time) and pass them to sink grouped per replica, in the order given.
// Unstarted replicas and unreadable logs become notices; the error counts
// the replicas whose logs could not be read.
util::Status fetch_logs(KubectlRunner& kubectl, const std::vector<ReplicaStatus>& replicas,
                        const LogOptions& options, const std::vector<std::string>& namespace_args,
                        const LogSink& sink, size_t parallelism = k_log_parallelism);

// What following sees on each look at the cluster.
struct JobSnapshot {
    JobPhase phase = JobPhase::Unknown;
    std::vector<ReplicaStatus> replicas;
};

// Look at the job and its pods again.
using SnapshotSource = std::function<util::Result<JobSnapshot>()>;

// Follow every matching replica's log until the job ends: one stream per pod,
// lines in arrival order, pods that are still pending waited for, restarted
// containers followed again.
util::Status follow_logs(KubectlRunner& kubectl, const SnapshotSource& snapshot,
                         const LogOptions& options, const std::vector<std::string>& namespace_args,
                         const LogSink& sink);

}  // namespace kftrain::cli
