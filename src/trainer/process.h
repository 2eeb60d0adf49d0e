#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trainer/result.h"

namespace kftrain::trainer {

// Say how to start a child process: argv (no shell), environment changes, output files.
struct SpawnSpec {
    std::vector<std::string> argv;
    // Variables set (or overridden) on top of this process's environment.
    std::map<std::string, std::string> env;
    // Files receiving stdout and stderr; empty keeps this process's streams.
    std::string stdout_path;
    std::string stderr_path;
};

// Start a child with posix_spawnp; return its pid.
Result<pid_t> spawn_process(const SpawnSpec& spec);

// Return the exit code of a child (128 + signal when killed), waiting at most timeout;
// nullopt when it is still running. A zero timeout only polls.
std::optional<int> wait_process(pid_t pid, std::chrono::milliseconds timeout);

// Wait for any of pids to exit without blocking longer than timeout; return (pid, code).
std::optional<std::pair<pid_t, int>> wait_any(const std::vector<pid_t>& pids,
                                              std::chrono::milliseconds timeout);

}  // namespace kftrain::trainer
