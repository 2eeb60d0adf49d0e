#pragma once

#include <ctime>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/view/output_format.h"
#include "cost/job_cost.h"
#include "job/status.h"

namespace kftrain::cli::view {

// Return "Running" or "Failed (BackoffLimitExceeded): message", the state as one line.
std::string format_state(const job::JobStatus& status);

// Which replicas the table shows: of more than job::k_many_replicas, a summary (counts, those
// not well), or every one (status --all or -o wide, describe --all).
enum class ReplicaRows { SummaryOfMany, Every };

// Print, when a job's status was read from its record in history, the one note that says so
// (on err, before the answer): the job is gone, or forced (--from-history) asked for it.
void print_recorded_note(std::ostream& err, const job::JobStatus& status, bool forced);

// Print one job's status in the given format; with pricing, what it has cost too.
void print_status(std::ostream& out, const job::JobStatus& status, OutputFormat format,
                  std::time_t now, const cost::Pricing* pricing = nullptr,
                  ReplicaRows rows = ReplicaRows::SummaryOfMany);

// Return "$0.0042 so far: 2 replicas x $0.08/h each (2 cores, 4 GiB), built-in prices",
// or "- (why it has no price)": the status table's Cost line.
std::string format_cost(const job::JobStatus& status, const util::Result<cost::JobCost>& cost);

// Print jobs as a list (with a NAMESPACE column when all_namespaces); with pricing, -o wide
// has a COST column and JSON a cost member per job.
void print_list(std::ostream& out, const std::vector<job::JobStatus>& jobs, OutputFormat format,
                bool all_namespaces, std::time_t now, const cost::Pricing* pricing = nullptr);

}  // namespace kftrain::cli::view
