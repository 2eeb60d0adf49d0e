#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kftrain::util {

// What kftrain reads of a /proc/PID/stat line: the state letter, the parent, the start time,
// the CPU time used and the resident memory.
struct ProcStat {
    char state = '?';                    // R, S, D, Z (zombie), X (dead), ...
    long long parent = 0;                // the parent's pid
    unsigned long long start_ticks = 0;  // clock ticks after boot (CLOCK_BOOTTIME's origin)
    unsigned long long cpu_ticks = 0;    // user and system time of all its threads, in ticks
    long long rss_pages = 0;             // resident set size in pages (0 when the line has none)
};

// Parse a /proc/PID/stat line: its fields follow the command name in parentheses, which may
// hold spaces and ')'; nullopt for a line that is not one.
std::optional<ProcStat> parse_proc_stat(const std::string& line);

// Read /proc/<pid>/stat (pid "self" for this process); nullopt when it cannot be read.
std::optional<ProcStat> read_proc_stat(const std::string& pid);

// Return the stat of every process in /proc by pid (threads are not processes there); a process
// that ends while it is read is left out.
std::map<long long, ProcStat> read_all_proc_stats();

// Return the pids of a process's children, and with all, of their children in turn (every
// descendant), from /proc; a process that ends meanwhile is left out.
std::vector<long long> child_processes(long long pid, bool all);

// Return whether the environment a process started with (/proc/<pid>/environ, its first
// 1 MiB) holds entry ("NAME=value") exactly; false when it cannot be read.
bool environment_has(long long pid, const std::string& entry);

}  // namespace kftrain::util
