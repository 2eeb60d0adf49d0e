#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace kftrain::job::data {

// One file or directory under --path in a claim.
struct Entry {
    std::string path;  // relative to --path: "train/images.bin"
    std::string type;  // file, directory, symlink or other
    uint64_t size = 0;
    int64_t modified = 0;  // seconds since the epoch
};

// What is under --path: the entries, sorted by path, and what they add up to.
struct Listing {
    std::string claim;
    std::string path;        // --path, normalized
    std::string local_path;  // locally: the directory it maps to; "" on the cluster
    bool found = false;      // --path itself was listed: it exists
    bool path_is_directory = true;
    std::vector<Entry> entries;

    // Return the number of files (not directories).
    size_t files() const;
    // Return the bytes of the files.
    uint64_t bytes() const;
};

// The `stat -c` format of a listing's records: token, type, size, mtime and name, by tabs. The
// token is a random word the listing picks, which no file name in the claim can foresee: a
// record starts only at a line that begins with it, so a newline in a name forges no entry.
std::string stat_format(const std::string& token);

// Read the records `find BASE -exec stat -c stat_format(token) {} +` prints into entries
// relative to base, sorted by path; the record of base itself says whether it is a directory.
// A name runs to the next record (newlines and tabs in it kept); records that are not five
// tab-separated fields are skipped.
Listing parse_stat_records(const std::string& text, const std::string& base,
                           const std::string& token);

// Return a byte count readably: "512 B", "1.5 KiB", "12.0 MiB", "3.2 GiB".
std::string format_bytes(uint64_t bytes);

// Prints a listing the way the verb was asked to (data ls -o).
using ListingPrinter = std::function<void(const Listing& listing, std::ostream& out)>;

}  // namespace kftrain::job::data
