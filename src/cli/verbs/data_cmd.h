#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "load/job_input.h"
#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain data put|get|ls` takes.
struct DataOptions {
    enum class Action { Put, Get, List };
    Action action = Action::List;
    std::string dir;  // put: LOCAL_DIR to copy from; get: OUT_DIR to copy into
    std::string claim;
    std::string path = "/";
    std::string image;
    bool as_root = false;
    bool force = false;  // get: replace files already in OUT_DIR
    std::string timeout = "2m";
    std::string output;
    load::JobInput input;    // -f: the job file whose volume maps the claim locally
    std::string local_path;  // --local-path: the directory the claim is on this machine

    // Derived.
    std::string namespace_;
    std::string job_backend;                // the job file's backend key
    std::vector<manifest::Volume> volumes;  // the job file's: one maps the claim locally
    std::string claim_path;                 // --path, normalized
    std::chrono::seconds start_timeout{120};
    view::OutputFormat format = view::OutputFormat::Table;

    // Check LOCAL_DIR/OUT_DIR and read the job file (its namespace, backend and volumes);
    // --local-path means the local backend.
    util::Status complete(Context& ctx);
    // Check --claim, --path, --timeout, --image and -o; the message names flag and value.
    util::Status validate();
    // Copy or list; return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain data` with its subcommands put, get and ls.
void setup_data(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
