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

// The `stat -c` format whose lines parse_stat_lines reads: type, size, mtime and name, by tabs.
inline constexpr const char* k_stat_format = "%F\t%s\t%Y\t%n";

// Read the lines `find BASE -exec stat -c k_stat_format {} +` prints into entries relative to
// base, sorted by path; the line of base itself says whether it is a directory. Lines that are
// not four tab-separated fields are skipped.
Listing parse_stat_lines(const std::string& text, const std::string& base);

// Return a byte count readably: "512 B", "1.5 KiB", "12.0 MiB", "3.2 GiB".
std::string format_bytes(uint64_t bytes);

// Prints a listing the way the verb was asked to (data ls -o).
using ListingPrinter = std::function<void(const Listing& listing, std::ostream& out)>;

}  // namespace kftrain::job::data
