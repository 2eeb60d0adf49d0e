#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain runtimes` takes.
struct RuntimesOptions {
    std::string output;  // -o as typed: "", table, json, yaml

    // Derived by complete() and validate().
    view::OutputFormat format = view::OutputFormat::Table;
    std::string namespace_;  // -n, else kubectl's
    bool local = false;      // --local was given: there are no runtimes to read

    // Take the namespace and --local from the global flags.
    util::Status complete(const Context& ctx);
    // Parse -o and refuse --local; the message names the flag and the value.
    util::Status validate();
    // List the ClusterTrainingRuntimes and the namespace's TrainingRuntimes; return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain runtimes`.
void setup_runtimes(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
