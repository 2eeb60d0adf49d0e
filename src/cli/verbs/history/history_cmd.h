#pragma once

#include <CLI/CLI.hpp>
#include <set>
#include <string>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "history/store.h"
#include "job/status.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain history` takes.
struct HistoryOptions {
    bool all_namespaces = false;
    bool all_contexts = false;  // --all-contexts: every kubeconfig context's records too
    std::string since;          // --since: finished within this long
    std::string state;          // --state: Succeeded, Failed, or both
    std::string output;         // -o: table, json or yaml

    // Derived by complete() and validate().
    history::Filter filter;
    std::set<job::JobPhase> states;
    double since_s = 0;
    view::OutputFormat format = view::OutputFormat::Table;

    // Find the context and namespace whose records are listed.
    util::Status complete(const Context& ctx);
    // Parse --since, --state and -o; the message names the flag and the value.
    util::Status validate();
    // List the records, newest first; return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain history`.
void setup_history(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
