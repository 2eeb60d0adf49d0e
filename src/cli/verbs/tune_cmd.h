#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "cli/verbs/job/logs_options.h"
#include "cli/view/output_format.h"
#include "job/backend.h"
#include "job/search_backend.h"
#include "load/job_input.h"
#include "tune/tune_spec.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain tune` takes to start a search.
struct TuneOptions {
    load::JobInput job;
    kftrain::tune::TuneFlags flags;
    std::string dry_run = "none";  // as typed: none, "" or client (print), server
    bool replace = false;          // --replace: locally, delete an earlier search of the name
    std::vector<std::string> env_from_shell;  // --env-from-shell: locally, for every trial
    std::string output;                       // -o: the dry run's format, yaml or json

    // Derived by complete() and validate().
    job::SearchRequest request;
    view::OutputFormat format = view::OutputFormat::Yaml;

    // Load the job file, build the search from its tune section and the flags, and render the
    // Experiment; errors name the flag or key.
    util::Status complete(const Context& ctx);
    // Parse --dry-run and check the search as Katib's webhook would.
    util::Status validate();
    // Print the Experiment (client dry run) or start the search; return the exit code.
    int run(Context& ctx) const;
};

// Everything `kftrain tune status` takes.
struct TuneStatusOptions {
    std::string name;
    std::string output = "table";
    view::OutputFormat format = view::OutputFormat::Table;
    std::string namespace_;

    util::Status complete(const Context& ctx);
    util::Status validate();
    // Print the search's trials and the best; exit 0 unless it Failed or was interrupted (1)
    // or is unreadable.
    int run(Context& ctx) const;
};

// Everything `kftrain tune logs` takes: a trial and the logs flags.
struct TuneLogsOptions {
    std::string name;
    std::string trial;
    LogsOptions logs;

    util::Status complete(const Context& ctx);
    util::Status validate();
    // Print the trial's job's logs as `kftrain logs` does.
    int run(Context& ctx);
};

// Everything `kftrain tune delete` takes.
struct TuneDeleteOptions {
    std::string name;
    std::string namespace_;

    util::Status complete(const Context& ctx);
    util::Status validate() const;
    int run(Context& ctx) const;
};

// Register `kftrain tune` and its status, logs and delete.
void setup_tune(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
