#pragma once

#include <ctime>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "cli/view/output_format.h"
#include "job/queue_entry.h"
#include "job/status.h"

namespace kftrain::cli::view {

// Return whether the State line shows the queue rather than the phase: while the job waits
// in it or is being evicted, and once admitted until its pods run.
bool shows_queue(const job::JobStatus& status);

// Return the status table's Queue line: "team-a -> cluster-queue gpu, priority high,
// workload pytorchjob-mnist-ddp-5c2f1, waiting 12m".
std::string format_queue_field(const job::QueueStatus& queue, std::time_t now);

// Print the jobs of a queue in queue order as a table (POSITION NAME KIND STATE WAITING) or
// as {"items": [...]} in JSON or YAML; the wait is from queuing to now, for pending jobs.
void print_queue_entries(std::ostream& out, const std::vector<job::QueueEntry>& entries,
                         OutputFormat format, std::time_t now);

// Print LocalQueues as a table (NAME CLUSTERQUEUE PENDING RESERVING ADMITTED ACTIVE) or as
// {"items": [...]} in JSON or YAML.
void print_local_queues(std::ostream& out, const std::vector<job::LocalQueueInfo>& queues,
                        OutputFormat format);

}  // namespace kftrain::cli::view
