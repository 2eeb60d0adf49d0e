#pragma once

#include <optional>
#include <string>

#include "job/queue_status.h"

namespace kftrain::job {

// A job of a LocalQueue as `kftrain list --queue` shows it, in queue order.
struct QueueEntry {
    std::string job;   // the Workload's owner
    std::string kind;  // PyTorchJob, TrainJob, ...
    std::string workload;
    QueueState state = QueueState::Pending;
    std::optional<int> position;  // 1-based among the pending, where the cluster says
    std::string queued_since;     // when the Workload was made
};

}  // namespace kftrain::job
