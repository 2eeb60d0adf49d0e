#pragma once

#include <cstddef>
#include <string>

#include "util/result.h"

namespace kftrain::state {

// Return the directory where kftrain keeps what outlives a command: $XDG_STATE_HOME/kftrain,
// or ~/.local/state/kftrain. Local jobs live in its jobs/, saved searches in searches/ and
// measured profiles in profiles/.
std::string state_root();

// The folders of the state directory, spelled here only: local jobs, saved searches, measured
// profiles; and, in the first two, the folder of their name locks.
inline constexpr const char* k_jobs_folder = "jobs";
inline constexpr const char* k_searches_folder = "searches";
inline constexpr const char* k_profiles_folder = "profiles";
inline constexpr const char* k_locks_folder = ".locks";

// Return a folder of the state directory: state_root()/folder.
std::string state_folder(const char* folder);

// Check a job name before it becomes a path: a DNS-1035 label, as job files
// require (exit 2 otherwise, so "../x" never reaches the file system).
util::Status check_job_name(const std::string& name);

// The most bytes kftrain reads of a file it keeps in the state directory (state.json, a
// search record): far past what it writes, so a damaged or planted file is refused, not read.
inline constexpr std::size_t k_max_state_bytes = std::size_t{16} << 20;

// Read a whole file of the state directory, at most k_max_state_bytes.
util::Result<std::string> read_state_file(const std::string& path);

}  // namespace kftrain::state
