#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "util/result.h"

namespace kftrain::cli {

// How often --watch reads the usage again.
inline constexpr double k_top_interval_s = 2.0;

// Everything `kftrain top` and `kftrain top nodes` take.
struct TopOptions {
    std::string job;     // top JOB
    bool nodes = false;  // top nodes
    std::string output;  // -o as typed: "", table, json, yaml
    bool watch = false;

    // Derived by complete() and validate().
    view::OutputFormat format = view::OutputFormat::Table;
    std::string namespace_;  // -n, else kubectl's

    // Take the namespace from the global flags.
    util::Status complete(const Context& ctx);
    // Check the job's name (one is needed without nodes) and parse -o; the message names the
    // flag or argument and the value.
    util::Status validate();
    // Show what the job's replicas (or the nodes) use; with --watch again every
    // k_top_interval_s until Ctrl-C (exit 130). Return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain top` and `kftrain top nodes`.
void setup_top(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
