#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain queues` takes.
struct QueuesOptions {
    std::string output;  // -o as typed: "", table, json, yaml

    // Derived by complete() and validate().
    view::OutputFormat format = view::OutputFormat::Table;
    std::string namespace_;  // -n, else kubectl's

    // Take the namespace from the global flags.
    util::Status complete(const Context& ctx);
    // Parse -o; the message names the flag and the value.
    util::Status validate();
    // List the namespace's Kueue LocalQueues, or this machine's queues; return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain queues`.
void setup_queues(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
