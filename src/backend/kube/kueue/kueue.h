#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backend/kube/queries.h"
#include "job/queue_entry.h"
#include "job/queue_status.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// Kueue through kubectl: the reads behind submit --queue, status and `kftrain queues`; what
// the answers mean is in kueue/workload.h.

// Check that Kueue is installed and serves LocalQueue queue in namespace ns before a job is
// submitted to it; where names the field or flag for messages ("--queue", "job.yaml:7:
// queue"). Return the ClusterQueue it points at ("" when its spec names none). Errors: Kueue
// missing (exit 4, with a hint), the LocalQueue missing (exit 3).
util::Result<std::string> check_local_queue(KubeQueries& queries, const std::string& ns,
                                            const std::string& queue, const std::string& where);

// Return where a job labelled with a queue (kueue.x-k8s.io/queue-name) stands in it: its
// Workload, the ClusterQueue and, where the visibility API answers, its position; nullopt
// for a job in no queue. A cluster that cannot say leaves the reason in the message.
std::optional<job::QueueStatus> read_queue_status(KubeQueries& queries, const nlohmann::json& job);

// Return the name of the Workload Kueue keeps for a job labelled with a queue; "" for a job
// in no queue, or whose Workload Kueue has not made (yet).
util::Result<std::string> workload_of(KubeQueries& queries, const nlohmann::json& job);

// Return the jobs of LocalQueue queue in the queries' namespace, in queue order, with their
// positions where the visibility API answers (error code 4 with a hint without Kueue).
util::Result<std::vector<job::QueueEntry>> list_queue(KubeQueries& queries,
                                                      const std::string& queue);

// Return the LocalQueues of the queries' namespace (error code 4 with a hint when Kueue is
// not installed).
util::Result<std::vector<job::LocalQueueInfo>> list_local_queues(KubeQueries& queries);

}  // namespace kftrain::backend::kube
