#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "backend/kube/status/events.h"
#include "history/record.h"
#include "job/backend.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// Answering from a job's record in history once the job is gone: the record's object, pods and
// events read by the same pure readers as a live job's, so every verb shows it as it did.

// Return the job's status rebuilt from its record: its object (job_reader(kind).status_from),
// its pods, settled, the diagnosis of its events, the progress of the lead replica's kept log,
// and recorded (the record's time).
job::JobStatus status_from_record(const history::Record& record);

// Return the record's events about the job and its pods, oldest first.
std::vector<KubeEvent> record_events(const history::Record& record, const job::JobStatus& status);

// Pass the kept logs of the replicas options choose (--replica, --previous, --tail,
// --timestamps) to sink, as the kubernetes backend's logs() does; a notice where a log was cut
// or none was kept. Error code 3 as a live job's: no such replica, no previous attempt.
util::Status record_logs(const history::Record& record, const job::JobStatus& status,
                         const job::LogOptions& options, const job::LogSink& sink);

// Return describe's account of a recorded job, without its why (the caller adds it).
job::JobDescription describe_record(const history::Record& record, const job::JobStatus& status,
                                    std::time_t now);

}  // namespace kftrain::backend::kube
