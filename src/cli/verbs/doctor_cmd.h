#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "job/backend.h"
#include "load/job_input.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain doctor` takes.
struct DoctorOptions {
    load::JobInput job;  // -f, --set: the job to check, if any
    std::string output;  // -o as typed: "", table, json, yaml

    // Derived by complete() and validate().
    view::OutputFormat format = view::OutputFormat::Table;
    job::DoctorRequest request;
    std::string job_backend;  // the job file's backend, "" without one

    // Load the job file when given (every check submit makes), with -n.
    util::Status complete(const Context& ctx);
    // Parse -o; the message names the flag and the value.
    util::Status validate();
    // Run the checks and print them; 0 when every needed check passed, 1 otherwise.
    int run(Context& ctx) const;
};

// Register `kftrain doctor`.
void setup_doctor(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
