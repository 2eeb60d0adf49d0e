#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/verbs/job/submit_cmd.h"
#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain run` takes: a job made from flags and a command, no job file.
struct RunOptions {
    std::vector<std::string> command;  // after --: the program and its arguments
    int replicas = 2;
    std::string kind;
    std::string runtime;
    std::string image;
    std::string code = ".";  // the folder shipped with the job
    bool no_code = false;
    std::string name;
    std::vector<std::string> env;  // NAME=VALUE
    int gpus = 0;
    std::string cpu;
    std::string memory;
    bool print_job_file = false;
    std::string namespace_;  // the global -n, written into the job file
    SubmitOptions submit;    // --follow, --wait, --dry-run and the rest, as submit takes them

    // Derived by complete().
    std::string job_file;  // the job file the flags make

    // Make the job file from the flags, then load and render it as submit does.
    util::Status complete(const Context& ctx);
    // Check submit's flags.
    util::Status validate();
    // Print the job file (--print-job-file), or submit the job as submit does.
    int run(Context& ctx) const;
};

// Return the job run's flags make, as a job file would hold it before loading: the keys the
// flags give and nothing else (the loader fills the rest); an error names the flag
// ("--env: expected NAME=VALUE (got X)").
util::Result<manifest::JobSpec> run_job_spec(const RunOptions& options, const std::string& suffix);

// Return the job file text run's flags make: run_job_spec written by manifest::write_job_file.
util::Result<std::string> run_job_file(const RunOptions& options, const std::string& suffix);

// Return the name run gives a job of this command: the script's name (train.py: train) made a
// DNS-1035 label, and "-" and the suffix.
std::string run_job_name(const std::vector<std::string>& command, const std::string& suffix);

// Return args (kftrain's arguments) with `--` put before run's command where the user wrote
// none, so that every word after the program's name is the program's (`kftrain run python3
// train.py --lr 0.1`). A word there that is one of run's or the global flags (`--replicas`,
// `-n`, `--local`) is an error (exit 2) saying to put it before the command or the command
// after `--`: never taken silently by one or the other. Other verbs' args come back as they are.
util::Result<std::vector<std::string>> separate_run_command(const CLI::App& app,
                                                            std::vector<std::string> args);

// Register `kftrain run`.
void setup_run(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
