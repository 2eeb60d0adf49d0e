#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain describe` takes.
struct DescribeOptions {
    std::string job;
    std::string output;                        // -o as typed: "" (text), json or yaml
    bool all = false;                          // a row for every replica, however many
    std::string namespace_;                    // derived: -n, else kubectl's
    std::optional<view::OutputFormat> format;  // derived: -o parsed; none: text

    // Take the namespace from the global flags.
    util::Status complete(const Context& ctx);
    // Check the job name and parse -o.
    util::Status validate();
    // Print why the job is where it is: status, conditions, events, as text or as the data of
    // -o json|yaml; return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain describe`.
void setup_describe(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
