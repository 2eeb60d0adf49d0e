#pragma once

#include <optional>
#include <string>
#include <vector>

#include "history/record.h"
#include "util/result.h"

namespace kftrain::history {

// Where the records live (docs/history.md):
//   <state>/kftrain/history/<context>/<namespace>/<name>.<uid>.jsonl
// <context> is the context's name where it is a plain file name, else its hash; <uid> is the
// job's uid where it is one (letters, digits, dashes), else its hash. Files are mode 0600,
// folders 0700.

// The key of one record.
struct RecordKey {
    std::string context;
    std::string namespace_;
    std::string name;
    std::string uid;
};

// Return the folder that holds every record.
std::string history_root();

// Return the path of a record's file.
std::string record_path(const RecordKey& key);

// Return whether a record exists for this key; with complete, one that is not partial.
bool has_record(const RecordKey& key, bool complete = false);

// What write_record did.
enum class Written { Kept, AlreadyKept };

// Write a record once: to a temporary file beside its place, linked into place only where no
// record is (a second writer finds AlreadyKept and leaves the first one as it was); a partial
// record (Summary::partial) is replaced, atomically, by one that is not. A full
// disk or any failure leaves every record as it was, no temporary file behind, and an error
// that names the record and why ("cannot keep the record of team-a/bert: No space left on
// device").
util::Result<Written> write_record(const Record& record);

// One record as history lists it: its summary and where it lies.
struct Listed {
    Summary summary;
    std::string path;
    std::vector<std::string> damaged;  // fields of the summary that could not be read
};

// What to list: the records of a context (empty: every context), a namespace (empty: every
// one), a name (empty: every one), finished since a time (0: any).
struct Filter {
    std::string context;
    std::string namespace_;
    std::string name;
    double since = 0;  // seconds since the epoch; a record with no finished time is kept
};

// Return the records that match, newest first (by finished time, then recorded), reading the
// first line of each only; a record whose first line is no summary is left out and named in
// unreadable ("PATH: not a record").
struct Listing {
    std::vector<Listed> records;
    std::vector<std::string> unreadable;
};
Listing list_records(const Filter& filter);

// Read a whole record (error code 3 when it does not exist, 4 when it cannot be read).
util::Result<Record> read_record(const std::string& path);

// Return the path of the newest record of a job (context, namespace, name), if any.
std::optional<std::string> newest_record(const std::string& context, const std::string& ns,
                                         const std::string& name);

}  // namespace kftrain::history
