#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "cost/job_cost.h"
#include "diagnose/evidence.h"
#include "history/record.h"
#include "job/status.h"
#include "manifest/render/job_label.h"

namespace kftrain::history {

// The labels and annotations submit stamps on a cluster job, read back into its record.
// They live with the job's other labels (manifest/render/job_label.h).
inline constexpr const char* k_submitted_by_label = manifest::k_submitted_by_label;
inline constexpr const char* k_estimated_cost_annotation = manifest::k_estimated_cost_annotation;

// Return the seconds a job ran, its time in a queue and its suspensions left out: from its
// first start (status.started, or the earliest "Started" event of its pods when that is
// earlier: the operator resets startTime when a job resumes) to its end (now while it runs),
// less each suspension its events show (a reason ending in "Suspended" until the next ending
// in "Resumed"). None when a time it needs is missing or unreadable: unknown, never 0.
std::optional<double> run_seconds(const job::JobStatus& status,
                                  const std::vector<diagnose::EventEvidence>& events,
                                  std::time_t now);

// Return the summary of a job's record: who, where and when from its status, run_s from
// run_seconds, its cost priced as cost::job_cost prices it over run_s (unpriced saying why
// where it cannot be), the estimate submit stamped, and why (the diagnosis's line).
Summary summarize(const std::string& context, const job::JobStatus& status,
                  const std::vector<diagnose::EventEvidence>& events, const cost::Pricing& pricing,
                  const std::string& why, std::time_t now);

}  // namespace kftrain::history
