#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tune/search_status.h"
#include "util/result.h"

namespace kftrain::cli::search {

// Where the local backend keeps its searches, beside its jobs (local/state_dir.h):
//   <state>/kftrain/searches/<name>/search.json   the search and every trial, rewritten
//                                                  atomically after each change
// Each trial's job lives in <state>/kftrain/jobs/<search>-<N>/ as any local job does.

// A local search as its store keeps it: what `tune status` shows, the spaces searched and
// the kftrain process that runs it.
struct SearchRecord {
    kftrain::tune::SearchStatus status;
    std::vector<std::string> spaces;   // per parameter, as written: "0.001:0.1:log"
    std::uint64_t seed = 0;            // of the random draws
    long long pid = 0;                 // the kftrain running the search
    unsigned long long pid_ticks = 0;  // its start time, against pid reuse
};

// Return the directory holding every local search.
std::string searches_root();

// Return the path of a search's search.json.
std::string search_path(const std::string& name);

// Return the names of the searches that have a record, sorted.
std::vector<std::string> search_names();

// Return a search's record as the JSON document of search.json.
nlohmann::json record_to_json(const SearchRecord& record);

// Read a search.json document; an error naming what is malformed.
util::Result<SearchRecord> record_from_json(const nlohmann::json& doc);

// Read a search's record (error code 3 when the search has none).
util::Result<SearchRecord> read_search(const std::string& name);

// Write a search's record atomically, making its directory.
util::Status write_search(const SearchRecord& record);

// Delete a search's record and its directory.
util::Status remove_search(const std::string& name);

}  // namespace kftrain::cli::search
