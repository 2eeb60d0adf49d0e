#pragma once

#include <optional>
#include <string>

#include "util/result.h"

namespace kftrain::util {

// Return a process's start time in clock ticks since boot; nullopt when it is
// gone or a zombie.
std::optional<unsigned long long> process_start_ticks(long long pid);

// Return whether a process runs (a zombie does not); when ticks is not 0, it
// must also be the process that started then, not a later one with its pid.
bool process_alive(long long pid, unsigned long long ticks = 0);

// Return a TCP port that is free on 127.0.0.1 now.
util::Result<int> free_port();
// Return the first of count consecutive ports free on 127.0.0.1 a moment ago.
util::Result<int> free_ports(int count);

// Return the absolute path of the running executable.
std::string self_executable();

// Return the current UTC time as RFC 3339 ("2026-11-22T04:10:00Z").
std::string now_timestamp();

// Return the current time in nanoseconds since the epoch: a queued job's place in its queue.
long long now_nanoseconds();

}  // namespace kftrain::util
