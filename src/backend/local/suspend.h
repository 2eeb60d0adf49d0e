#pragma once

#include <string>

#include "backend/local/state/job_state.h"
#include "util/result.h"

namespace kftrain::backend::local {

// Suspending a local job: the verb leaves a request file in the job's state directory and
// sends its supervisor SIGTERM; the supervisor then stops every replica with SIGTERM (the
// trainer checkpoints and exits 143), records the job Suspended (not Failed, no restart) and
// keeps the replicas' launch for resume, which starts a supervisor again.

// Return the path of a job's suspend request (suspend.request in its state directory).
std::string suspend_request_path(const std::string& name);

// Return whether kftrain suspend has asked the job's supervisor to suspend it.
bool suspend_requested(const std::string& name);

// Ask a running job's supervisor to suspend it: write the request, then SIGTERM. A job
// already Suspended is left as it is; one without a live supervisor is an error (code 2).
util::Status request_suspend(const JobState& state);

// Return the state a suspended job starts again from: Created, every replica Pending with no
// process, the suspension and the old supervisor forgotten; restarts and logs are kept. A job
// of a queue goes to its back, as of now (RFC 3339 and nanoseconds since the epoch), and
// waits for its turn again.
JobState resumed_state(JobState state, const std::string& now, long long now_ns);

}  // namespace kftrain::backend::local
