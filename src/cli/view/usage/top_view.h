#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "cli/view/output_format.h"
#include "job/usage.h"

namespace kftrain::cli::view {

// The note under a table that marks a replica at risk of the OOM killer.
inline constexpr const char* k_oom_risk_note =
    "! working set at or above 90% of the memory limit: at risk of being OOM-killed";

// Return cores as millicores ("502m"), whole cores as such ("2"); "-" when unknown.
std::string format_cores(std::optional<double> cores);

// Return bytes in binary units ("468Ki", "61Mi", "1.5Gi", "4Gi"); "-" when unknown.
std::string format_bytes(std::optional<double> bytes);

// Return a job's usage as -o json|yaml data: base units (cores, bytes), null where unknown.
nlohmann::ordered_json job_usage_data(const job::JobUsage& usage);

// Print a job's usage: a row per replica (its node, or locally its process), CPU and memory
// used against request/limit, restarts and GPUs; the OOM-risk mark's note under the table
// when a replica has it. JSON and YAML as job_usage_data.
void print_job_usage(std::ostream& out, const job::JobUsage& usage, OutputFormat format);

// Return the nodes' usage as -o json|yaml data (base units, null where unknown).
nlohmann::ordered_json node_usage_data(const job::NodeUsageList& nodes);

// Print each node's allocated/allocatable for CPU, memory, nvidia.com/gpu and every other
// extended resource a node advertises, and its GPU product.
void print_node_usage(std::ostream& out, const job::NodeUsageList& nodes, OutputFormat format);

// Print warnings as "kftrain: warning: ..." lines.
void print_usage_warnings(std::ostream& err, const std::vector<std::string>& warnings);

}  // namespace kftrain::cli::view
