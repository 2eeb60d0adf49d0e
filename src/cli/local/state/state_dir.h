#pragma once

#include <cstddef>
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
//   <root>/<name>/supervisor.json   what the supervisor could not save in state.json (a full
//                                   disk): written in place, into space reserved at submit
//   <root>/<name>/launch.json       the replicas' unmasked argv and env, from submit to the
//                                   supervisor, which removes it once read
//   <root>/.locks/<name>.lock       flock()ed while a verb changes the job (name_lock.h)
//   <root>/.locks/queue.<q>.lock    flock()ed while a supervisor of queue q takes its turn
// The root is $XDG_STATE_HOME/kftrain/jobs, or ~/.local/state/kftrain/jobs. Directories
// are made mode 0700 and files 0600: they hold the job's environment.

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

// Return the path of the supervisor's last word (supervisor.json).
std::string last_word_path(const std::string& name);

// Return the path of the replicas' launch file (launch.json).
std::string launch_path(const std::string& name);

// Return the names of the jobs that have a state directory (a job name, with or without a
// readable state.json), sorted.
std::vector<std::string> job_names();

// Make a directory and its missing parents, each new one mode 0700; error "cannot create
// PATH: reason".
util::Status make_private_dir(const std::string& path);

// Write all of text to fd; error "cannot write PATH: reason" (e.g. No space left on device).
util::Status write_fd(int fd, const std::string& text, const std::string& path);

// Write a file atomically, mode 0600: write PATH.tmp.PID beside it, fsync it, rename it over
// PATH and fsync the directory. Errors name PATH and the reason.
util::Status write_file_atomic(const std::string& path, const std::string& text);

// Create a file of size bytes (mode 0600) whose blocks are allocated now, so that it can be
// rewritten in place (write_in_place) when the disk is full.
util::Status reserve_file(const std::string& path, size_t size);

// Write text at the start of a reserved file, padding the rest with spaces; text longer
// than the file is an error.
util::Status write_in_place(const std::string& path, const std::string& text);

// The most bytes kftrain reads of a file it keeps in the state directory (state.json, a
// search record): far past what it writes, so a damaged or planted file is refused, not read.
inline constexpr std::size_t k_max_state_bytes = std::size_t{16} << 20;

// Read a whole file of the state directory, at most k_max_state_bytes.
util::Result<std::string> read_state_file(const std::string& path);

}  // namespace kftrain::cli::local
