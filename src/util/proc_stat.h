#pragma once

#include <optional>
#include <string>

namespace kftrain::util {

// What kftrain reads of a /proc/PID/stat line: the state letter and the start time.
struct ProcStat {
    char state = '?';                    // R, S, D, Z (zombie), X (dead), ...
    unsigned long long start_ticks = 0;  // clock ticks after boot (CLOCK_BOOTTIME's origin)
};

// Parse a /proc/PID/stat line: its fields follow the command name in parentheses, which may
// hold spaces and ')'; nullopt for a line that is not one.
std::optional<ProcStat> parse_proc_stat(const std::string& line);

// Read /proc/<pid>/stat (pid "self" for this process); nullopt when it cannot be read.
std::optional<ProcStat> read_proc_stat(const std::string& pid);

}  // namespace kftrain::util
