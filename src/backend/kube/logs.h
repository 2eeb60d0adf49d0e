#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backend/kube/kubectl.h"
#include "backend/kube/log_batches.h"
#include "job/backend.h"
#include "job/status.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// Replicas read at once when not following (following opens one stream per pod).
constexpr size_t k_log_parallelism = 16;

// Run work(0) .. work(count - 1) on threads, at most parallelism at a time, and wait for all:
// the kubectl calls of a verb side by side (logs of many pods, the kubelet summaries of nodes).
void for_each_parallel(size_t count, size_t parallelism, const std::function<void(size_t)>& work);

// Return the kubectl arguments that read a replica's log: its pod's container ("logs POD -c
// pytorch ...", "-c node" on a TrainJob's node; pytorch when the replica names none).
std::vector<std::string> log_args(const job::ReplicaStatus& replica, const job::LogOptions& options,
                                  const std::vector<std::string>& namespace_args);

// Return the kubectl arguments that read a batch of replicas in one process: "logs -l SELECTOR
// --prefix -c CONTAINER --tail=N ...", --tail=-1 when options want every line (with a
// selector kubectl's default is 10).
std::vector<std::string> batch_log_args(const LogBatch& batch, const job::LogOptions& options,
                                        const std::vector<std::string>& namespace_args);

// Explain a failed `kubectl logs`: kubectl's line, with a hint only for
// cluster-wide causes (unreachable, forbidden, context), never "rejected".
// Return the replicas of chosen that restarted, for logs --previous: a notice through sink for
// each that did not (kubectl would answer BadRequest for it), exit 3 when none did.
util::Result<std::vector<job::ReplicaStatus>> previous_attempts(
    const std::string& job, const std::vector<job::ReplicaStatus>& chosen,
    const std::string& wanted, const job::LogSink& sink);

std::string explain_log_error(const std::string& stderr_text, const std::string& action);

// Read the logs of these replicas and pass them to sink grouped per replica, in the order
// given. Replicas whose pods job_selector found are read in batches (log_batches.h), the rest
// a pod each, at most parallelism kubectl at a time; a batch that fails has the replicas it
// printed nothing of read one by one, so that each says why. Unstarted replicas and unreadable
// logs become notices; the error counts the replicas whose logs could not be read.
util::Status fetch_logs(KubectlRunner& kubectl, const std::vector<job::ReplicaStatus>& replicas,
                        const std::string& job_selector, const job::LogOptions& options,
                        const std::vector<std::string>& namespace_args, const job::LogSink& sink,
                        size_t parallelism = k_log_parallelism);

}  // namespace kftrain::backend::kube
