#pragma once

#include <ctime>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cost/job_cost.h"
#include "job/status.h"

namespace kftrain::inspect {

// Return a progress report as JSON, as status -o json shows it under "progress" (camelCase,
// only what it says).
nlohmann::json progress_to_json(const job::Progress& progress);

// Return a job's status as JSON (the -o json shape; -o yaml is the same tree); with
// pricing, a "cost" member: the amount and its basis, or {"unknown": why}.
nlohmann::json status_to_json(const job::JobStatus& status, std::time_t now,
                              const cost::Pricing* pricing = nullptr);

}  // namespace kftrain::inspect
