#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "cost/job_cost.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain status` takes.
struct StatusOptions {
    std::string job;
    std::string output;  // -o as typed: "", table, wide, json, yaml
    bool watch = false;
    bool all = false;  // a row for every replica, however many
    std::string interval = "5s";
    std::string prices;  // --prices: the catalog the Cost line uses
    std::string gpu;     // --gpu: the replicas' GPU type

    // Derived by complete() and validate().
    view::OutputFormat format = view::OutputFormat::Table;
    double interval_s = 5;
    cost::Pricing pricing;
    std::string namespace_;

    // Load the price catalog (with --gpu checked against it) and take the namespace.
    util::Status complete(const Context& ctx);
    // Parse -o and --interval; the message names the flag and the value.
    util::Status validate();
    // Show the job's status (and, watching, each change until it ends); return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain status`.
void setup_status(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
