#pragma once

#include <ctime>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/backend.h"
#include "cli/job_cost.h"
#include "cli/job_status.h"

namespace kftrain::cli {

// How status and list print: a table, a wider table, JSON or YAML.
enum class OutputFormat { Table, Wide, Json, Yaml };

// Parse the value of -o ("" is the table); nullopt when it is none of them.
std::optional<OutputFormat> parse_output_format(const std::string& text);

// Return "Running" or "Failed (BackoffLimitExceeded): message", the state as one line.
std::string format_state(const JobStatus& status);

// Print one job's status in the given format; with pricing, what it has cost too.
void print_status(std::ostream& out, const JobStatus& status, OutputFormat format, std::time_t now,
                  const Pricing* pricing = nullptr);

// Return "$0.0042 so far: 2 replicas x $0.08/h each (2 cores, 4 GiB), built-in prices",
// or "- (why it has no price)": the status table's Cost line.
std::string format_cost(const JobStatus& status, const util::Result<JobCost>& cost);

// Print jobs as a list (with a NAMESPACE column when all_namespaces); with pricing, -o wide
// has a COST column and JSON a cost member per job.
void print_list(std::ostream& out, const std::vector<JobStatus>& jobs, OutputFormat format,
                bool all_namespaces, std::time_t now, const Pricing* pricing = nullptr);

// Return a job's status as JSON (the -o json shape; -o yaml is the same tree); with
// pricing, a "cost" member: the amount and its basis, or {"unknown": why}.
nlohmann::json status_to_json(const JobStatus& status, std::time_t now,
                              const Pricing* pricing = nullptr);

// Print JSON as YAML (for -o yaml).
void print_json_as_yaml(std::ostream& out, const nlohmann::json& value);

// Format one log line as "master-0 | text", the replica padded to width; a
// trainer JSON line (after an optional timestamp) is made readable unless raw.
std::string format_log_line(const LogLine& line, bool raw, size_t width = 0);

}  // namespace kftrain::cli
