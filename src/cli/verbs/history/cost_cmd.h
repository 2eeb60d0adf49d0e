#pragma once

#include <CLI/CLI.hpp>
#include <ctime>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "cost/job_cost.h"
#include "cost/spend.h"
#include "history/store.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain cost` takes.
struct CostOptions {
    std::string since = "30d";  // --since: jobs that finished within this long, or still run
    std::string by = "job";     // --by: job, namespace, queue, user or label:KEY
    bool all_namespaces = false;
    bool all_contexts = false;  // --all-contexts: every kubeconfig context's records too
    std::string output;         // -o: table, json, yaml or csv
    std::string budget;         // --budget: exit 1 when the total is over it
    std::string prices;         // --prices: the catalog that prices live and local jobs

    // Derived by complete() and validate().
    history::Filter filter;
    cost::Pricing pricing;
    double since_s = 0;
    cost::SpendGrouping grouping;
    view::OutputFormat format = view::OutputFormat::Table;
    std::optional<double> budget_amount;

    // Load the price catalog; find the context and namespace whose records count.
    util::Status complete(const Context& ctx);
    // Parse --since, --by, -o and --budget; the message names the flag and the value.
    util::Status validate();
    // Add up what the jobs cost and print it; return the exit code (1: over --budget).
    int run(Context& ctx) const;
    // Return the items of the records, and the uids they hold.
    std::vector<cost::SpendItem> recorded(Context& ctx, std::time_t now,
                                          std::set<std::string>& uids) const;
    // Return the items of the live jobs (cluster, or this machine with --local) not recorded.
    std::vector<cost::SpendItem> live(Context& ctx, std::time_t now,
                                      const std::set<std::string>& uids) const;
};

// Register `kftrain cost`.
void setup_cost(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
