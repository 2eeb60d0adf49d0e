#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "state/state_files.h"
#include "util/files.h"
#include "util/result.h"

namespace kftrain::backend::local {

// Where the local backend keeps its jobs, one directory each:
//   <root>/<name>/state.json        the job's state, rewritten atomically
//   <root>/<name>/logs/all.log      every replica's lines in arrival order:
//                                   "<RFC 3339 time>\t<replica>\t<text>"
//   <root>/<name>/logs/master-0.log one replica's lines as it printed them
//   <root>/<name>/supervisor.log    the supervisor's own errors
//   <root>/<name>/supervisor.json   what the supervisor could not save in state.json (a full
//                                   disk): written in place, into space reserved at submit
//   <root>/<name>/launch.json       the replicas' unmasked argv and env, from submit to the
//                                   supervisor, which removes it once read
//   <root>/.locks/<name>.lock       flock()ed while a verb changes the job (name_lock.h)
//   <root>/.locks/queue.<q>.lock    flock()ed while a supervisor of queue q takes its turn
// The root is $XDG_STATE_HOME/kftrain/jobs, or ~/.local/state/kftrain/jobs. Directories
// are made mode 0700 and files 0600: they hold the job's environment.

// The names of what a job's state directory holds, spelled here only.
inline constexpr const char* k_state_file = "state.json";
inline constexpr const char* k_logs_folder = "logs";
inline constexpr const char* k_combined_log_file = "all.log";
inline constexpr const char* k_last_word_file = "supervisor.json";
inline constexpr const char* k_launch_file = "launch.json";
inline constexpr const char* k_supervisor_log_file = "supervisor.log";
inline constexpr const char* k_code_folder = "code";

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

// Return the path of the supervisor's last word (supervisor.json).
std::string last_word_path(const std::string& name);

// Return the path of the replicas' launch file (launch.json).
std::string launch_path(const std::string& name);
// Return the path of the supervisor's own errors (supervisor.log).
std::string supervisor_log_path(const std::string& name);

// Return the directory holding the copy of the folder a job ships (code): its replicas'
// working directory, made at submit.
std::string code_dir(const std::string& name);

// Return the names of the jobs that have a state directory (a job name, with or without a
// readable state.json), sorted.
std::vector<std::string> job_names();

}  // namespace kftrain::backend::local
