#pragma once

#include <ctime>
#include <string>

#include "backend/kube/kubectl.h"
#include "backend/kube/queries.h"
#include "history/record.h"
#include "job/backend.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// Gather the record of a finished job whose status was just read (with its pods and their
// selector): its object, its pods' list and its and its pods' events as kubectl prints them,
// each replica's log (the current attempt, and the previous one of a replica that restarted)
// kept as history::keep_log keeps it, the diagnosis as `diagnose -o json` prints it, and the
// summary (history::summarize, priced with the default price catalog). backend reads the logs
// the diagnosis needs (the cluster's, not a record's).
util::Result<history::Record> gather_record(job::Backend& backend, KubeQueries& queries,
                                            KubectlRunner& kubectl, const job::JobStatus& status,
                                            const std::string& context, std::time_t now);

// Return the name of the kubeconfig context: context when given (--context), else kubectl's
// current one; "" when it cannot be read.
std::string context_name(KubeQueries& queries, const std::string& context);

// Return the namespace jobs are read in: ns when given (-n), else the context's, else
// "default" (as kubectl reads it).
std::string namespace_name(KubeQueries& queries, const std::string& ns);

}  // namespace kftrain::backend::kube
