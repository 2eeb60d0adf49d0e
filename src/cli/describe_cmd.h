#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain describe` takes.
struct DescribeOptions {
    std::string job;
    std::string namespace_;  // derived: -n, else kubectl's

    // Take the namespace from the global flags.
    util::Status complete(const Context& ctx);
    // Accept every combination: describe has no flag values to check.
    util::Status validate() const;
    // Print why the job is where it is: status, conditions, events; return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain describe`.
void setup_describe(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
