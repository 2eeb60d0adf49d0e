#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tune/search_status.h"
#include "util/result.h"

namespace kftrain::search {

// Where the local backend keeps its searches, beside its jobs (backend/local/state/state_dir.h):
//   <state>/kftrain/searches/<name>/search.json   the search and every trial, rewritten
//                                                  atomically after each change (mode 0600,
//                                                  its directory 0700)
//   <state>/kftrain/searches/.locks/<name>.lock   flock()ed by the kftrain that runs the
//                                                  search, for as long as it runs
// Each trial's job lives in <state>/kftrain/jobs/<search>-<N>/ as any local job does.

// A local search as its store keeps it: what `tune status` shows, the spaces searched and
// the kftrain process that runs it.
struct SearchRecord {
    kftrain::tune::SearchStatus status;
    std::vector<std::string> spaces;   // per parameter, as written: "0.001:0.1:log"
    std::uint64_t seed = 0;            // of the random draws
    long long pid = 0;                 // the kftrain running the search
    unsigned long long pid_ticks = 0;  // its start time, against pid reuse
    std::string run;                   // this run's id: its trials' checkpoint directories
};

// The most trials a local search runs: its record (rewritten after each change, read at most
// state::k_max_state_bytes) stays small, and each trial is a job on this machine.
inline constexpr int k_max_local_trials = 10000;

// Return the directory holding every local search.
std::string searches_root();

// Return the path of a search's search.json.
std::string search_path(const std::string& name);

// Return the path of a search's lock file, held while the search runs.
std::string search_lock_path(const std::string& name);

// Return whether a search has a directory on this machine (a record, readable or not).
bool search_exists(const std::string& name);

// Return the names of the searches that have a record, sorted.
std::vector<std::string> search_names();

// Return a search's record as the JSON document of search.json.
nlohmann::json record_to_json(const SearchRecord& record);

// Read a search.json document; an error naming what is malformed.
util::Result<SearchRecord> record_from_json(const nlohmann::json& doc);

// Read a search's record: error code 3 when the search has none; code 4 naming the file and
// the field when it cannot be read, is larger than state::k_max_state_bytes or is damaged
// ("PATH: field 'trials[0].index' is not a number; remove the search with: kftrain tune
// delete NAME --local"; without hint, the error stops before "; remove").
util::Result<SearchRecord> read_search(const std::string& name, bool hint = true);

// Return whether the kftrain a record names runs: a pid with its recorded start time. A
// record without a start time (0) or with another names no process, so that a damaged or
// planted record never leads kftrain to signal an unrelated process.
bool search_process_running(const SearchRecord& record);

// Write a search's record atomically, making its directory (mode 0700).
util::Status write_search(const SearchRecord& record);

// Delete a search's record and its directory.
util::Status remove_search(const std::string& name);

}  // namespace kftrain::search
