#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backend/kube/kubectl.h"
#include "job/backend.h"
#include "job/status.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// Replicas read at once when not following (following opens one stream per pod).
constexpr size_t k_log_parallelism = 16;

// Return the kubectl arguments that read a replica's log: its pod's container ("logs POD -c
// pytorch ...", "-c node" on a TrainJob's node; pytorch when the replica names none).
std::vector<std::string> log_args(const job::ReplicaStatus& replica, const job::LogOptions& options,
                                  const std::vector<std::string>& namespace_args);

// Explain a failed `kubectl logs`: kubectl's line, with a hint only for
// cluster-wide causes (unreachable, forbidden, context), never "rejected".
std::string explain_log_error(const std::string& stderr_text, const std::string& action);

// Read the logs of these replicas concurrently (at most parallelism at a
// time) and pass them to sink grouped per replica, in the order given.
// Unstarted replicas and unreadable logs become notices; the error counts
// the replicas whose logs could not be read.
util::Status fetch_logs(KubectlRunner& kubectl, const std::vector<job::ReplicaStatus>& replicas,
                        const job::LogOptions& options,
                        const std::vector<std::string>& namespace_args, const job::LogSink& sink,
                        size_t parallelism = k_log_parallelism);

}  // namespace kftrain::backend::kube
