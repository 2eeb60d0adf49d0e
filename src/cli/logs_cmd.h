#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/backend.h"
#include "cli/context.h"

namespace kftrain::cli {

// Everything `kftrain logs` takes.
struct LogsOptions {
    std::string job;
    bool follow = false;
    int tail = -1;  // -1: all lines
    std::string since;
    bool timestamps = false;
    std::string replica;
    bool previous = false;
    bool raw = false;
    std::string poll_interval = "2s";
};

// Register `kftrain logs`.
void setup_logs(CLI::App& app, Context& ctx);

// Check the flags of logs; return an error naming the flag, or "".
std::string validate_logs(const LogsOptions& options);

// Turn checked flags into what the backend takes.
LogOptions to_log_options(const LogsOptions& options);

// Print a job's logs; return the exit code.
int run_logs(const LogsOptions& options, Context& ctx);

// Print the logs through a backend, lines prefixed with their replica, notices
// on stderr; return 0, or the code of the backend's error after printing it.
int print_logs(Backend& backend, const std::string& job, const LogOptions& options, bool raw,
               Context& ctx);

}  // namespace kftrain::cli
