#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/context.h"
#include "job/backend.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain logs` takes.
struct LogsOptions {
    std::string job;
    bool follow = false;
    std::optional<int> tail;           // unset: all (of many replicas, the last 100); -1: all
    bool all = false;                  // every line and replica however many
    std::optional<std::string> since;  // unset: every line
    bool timestamps = false;
    std::string replica;
    bool previous = false;
    bool raw = false;
    bool no_progress = false;  // following on a terminal: plain lines, no live progress lines
    std::string poll_interval = "2s";

    // Derived by complete() and validate().
    std::string namespace_;
    job::LogOptions backend_options;  // the flags, checked, as the backend takes them

    // Take the namespace.
    util::Status complete(const Context& ctx);
    // Check the job name and validate_flags().
    util::Status validate();
    // Check --tail, --since, --replica and --poll-interval and turn them into what the backend
    // takes; the message names the flag and the value.
    util::Status validate_flags();
    // Print the job's logs; return the exit code.
    int run(Context& ctx) const;
};

// Add the flags that choose which lines to print (-f, --tail, --since, --replica, ...): logs
// and `tune logs` take the same.
void add_log_flags(CLI::App& sub, LogsOptions& options);

}  // namespace kftrain::cli
