#pragma once

#include <string>

#include "job/backend.h"
#include "util/result.h"

namespace kftrain::backend::local {

// Stream a job's logs to sink: the last lines, or following until the job ends.
util::Status read_logs(const std::string& job, const job::LogOptions& options,
                       const job::LogSink& sink);

}  // namespace kftrain::backend::local
