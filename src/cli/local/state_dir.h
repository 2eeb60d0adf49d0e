#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::cli::local {

// Where the local backend keeps its jobs, one directory each:
//   <root>/<name>/state.json        the job's state, rewritten atomically
//   <root>/<name>/logs/all.log      every replica's lines in arrival order:
//                                   "<RFC 3339 time>\t<replica>\t<text>"
//   <root>/<name>/logs/master-0.log one replica's lines as it printed them
//   <root>/<name>/supervisor.log    the supervisor's own errors
// The root is $XDG_STATE_HOME/kftrain/jobs, or ~/.local/state/kftrain/jobs.

// Check a job name before it becomes a path: a DNS-1035 label, as job files
// require (exit 2 otherwise, so "../x" never reaches the file system).
util::Status check_job_name(const std::string& name);

// Return the directory holding every local job.
std::string jobs_root();

// Return the state directory of one job.
std::string job_dir(const std::string& name);

// Return the path of a job's state.json.
std::string state_path(const std::string& name);

// Return the directory of a job's log files.
std::string logs_dir(const std::string& name);

// Return the path of the log of every replica in arrival order.
std::string combined_log_path(const std::string& name);

// Return the names of the jobs that have a state directory, sorted.
std::vector<std::string> job_names();

// Write a file atomically: write a temporary file beside it, then rename it over.
util::Status write_file_atomic(const std::string& path, const std::string& text);

// Read a whole file; an error when it cannot be read.
util::Result<std::string> read_file(const std::string& path);

}  // namespace kftrain::cli::local
