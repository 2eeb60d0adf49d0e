#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "cost/job_cost.h"
#include "job/queue_entry.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain list` takes.
struct ListOptions {
    bool all_namespaces = false;
    std::string output;  // -o as typed: "", table, wide, json, yaml
    std::string prices;  // --prices: the catalog of -o wide's COST column
    std::string queue;   // --queue: the jobs of this queue (Kueue's, or local), in queue order

    // Derived by complete() and validate().
    view::OutputFormat format = view::OutputFormat::Table;
    cost::Pricing pricing;
    std::string namespace_;

    // Load the price catalog and take the namespace.
    util::Status complete(const Context& ctx);
    // Parse -o; the message names the flag and the value.
    util::Status validate();
    // List the jobs, priced; return the exit code.
    int run(Context& ctx) const;
    // List the jobs of --queue (a Kueue LocalQueue, or the local queue); return the exit code.
    int run_queue(Context& ctx) const;
    // Read the jobs of --queue from the backend the global flags choose.
    util::Result<std::vector<job::QueueEntry>> queue_entries(Context& ctx) const;
};

// Register `kftrain list`.
void setup_list(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
