#pragma once

#include <ostream>

namespace kftrain::job {

// What a backend's method says while it works, beside what it returns: the lines a long method
// streams as its result grows (a local search's trials) on out, and progress, warnings and what
// it has done ("put: 3 files, 1.2 KiB from data to mnist-data:/") on notes. The verb supplies
// it (standard output and error; strings for the MCP server). A method writes nowhere else and
// returns its errors, never prints them: the verb turns them into one "kftrain: error:" line.
struct Reporter {
    std::ostream& out;
    std::ostream& notes;
};

}  // namespace kftrain::job
