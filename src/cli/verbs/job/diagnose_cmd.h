#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain diagnose` takes.
struct DiagnoseOptions {
    std::string job;
    std::string output;                      // -o as typed: "" (text), json or yaml
    std::optional<std::string> stuck_after;  // --stuck-after as typed
    std::string namespace_;                  // derived: -n, else kubectl's
    std::optional<view::OutputFormat> format;
    double stuck_after_s = 0;

    // Take the namespace from the global flags.
    util::Status complete(const Context& ctx);
    // Check the job name, -o and --stuck-after.
    util::Status validate();
    // Print the diagnosis; return 0, or the lookup's exit code.
    int run(Context& ctx) const;
};

// Register `kftrain diagnose`.
void setup_diagnose(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
