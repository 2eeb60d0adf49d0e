#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "diagnose/diagnosis.h"
#include "job/backend.h"
#include "util/result.h"

namespace kftrain::inspect {

// How long a running job may go without a progress report or a log line before it is stuck.
inline constexpr double k_default_stuck_after_s = 600;

// Diagnose a job through its backend: its status, its events, the last lines of
// every replica with timestamps (of the previous attempt for one that restarted), then
// diagnose::diagnose_job. Error code 3 when the job does not exist.
util::Result<diagnose::Diagnosis> diagnose_with(job::Backend& backend, const std::string& job,
                                                double stuck_after_s, std::time_t now);

// Diagnose a job whose status and events are already read: only the logs are read.
diagnose::Diagnosis diagnose_status(job::Backend& backend, const job::JobStatus& status,
                                    std::vector<diagnose::EventEvidence> events,
                                    double stuck_after_s, std::time_t now);

// Return whether a job not finished nor suspended has fewer pods than it asks for (none, when
// that is unknown): its events may say why (a quota refused them), and why_line reads them.
bool pods_missing(const job::JobStatus& status);

// Return the one-line "Why:" of status and describe: for a failed job the diagnosis's, for a
// job whose pods a quota refused the quota and its numbers (from the events), for a
// running job in a crash loop the loop, for one whose last progress report is older than
// stuck_after_s that it looks stuck; "" for a job with nothing to explain. Reads the logs only
// for a failed job, or one with a replica down again after a restart.
std::string why_line(job::Backend& backend, const job::JobStatus& status,
                     const std::vector<diagnose::EventEvidence>& events, double stuck_after_s,
                     std::time_t now);

}  // namespace kftrain::inspect
