#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "estimate/plan.h"
#include "estimate/report.h"
#include "load/job_input.h"
#include "manifest/code.h"
#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::cli {

// The flags of estimate, parsed: the plan's flags and the goal.
struct EstimateRequest {
    estimate::PlanFlags flags;
    std::optional<estimate::Goal> goal;
};

// Everything `kftrain estimate` takes.
struct EstimateOptions {
    load::JobInput job;
    std::vector<std::string> profiles;  // --profile, repeatable
    std::string workers;
    std::string gpu;
    std::string network;
    std::string intra_node_network;
    std::string latency;
    std::string replicas_per_node;
    std::optional<std::string> overhead;  // as typed; unset: the default start-up time
    std::string prices;
    std::optional<std::string> deadline;  // as typed; unset: no deadline
    std::string budget;
    std::string output;    // -o as typed: "", table, json or yaml
    bool measure = false;  // --measure
    // As typed; given empty (an unset variable in a script), an error naming the flag.
    std::optional<std::string> measure_replicas;  // --measure-replicas; default 1,2
    std::optional<std::string> measure_seconds;   // --measure-seconds; default 60s
    std::optional<std::string> profile_out;       // --profile-out
    bool on_cluster = false;                      // --on-cluster: measure on the cluster
    bool measure_parallel = false;                // --measure-parallel
    bool yes = false;                             // --yes: go ahead at the measurement's cost
    std::optional<std::string> max_cost;          // --max-cost: ... or within this
    std::optional<std::string> start_timeout;     // --start-timeout; default 10m
    bool print_job_file = false;  // --print-job-file: the job file with the measured resources

    // Derived by complete() and validate().
    manifest::JobSpec spec;                    // the job file, loaded and checked
    std::optional<manifest::CodeBundle> code;  // with --measure: the folder it ships, read
    EstimateRequest request;
    std::vector<int> measure_sizes = {1, 2};
    double measure_limit_s = 60;
    double start_timeout_s = 600;
    std::optional<double> max_cost_amount;
    bool runs_here = false;  // --local or backend: local
    view::OutputFormat format = view::OutputFormat::Table;

    // Load the job file; a local job (--local or backend: local) is estimated for this machine.
    util::Status complete(const Context& ctx);
    // Parse every flag and -o; the message names the flag and the value.
    util::Status validate();
    // Check --measure and the flags that need it.
    util::Status validate_measure();
    // Check --on-cluster and the flags that need it.
    util::Status validate_on_cluster();
    // Measure (here, or on the cluster once its cost is approved); return the profile's path.
    util::Result<std::string> run_measurement(Context& ctx) const;
    // Print the job file with the resources recommended from a program's measured use.
    int print_sized_job_file(Context& ctx, const estimate::Report& report) const;
    // Print the estimate; return the exit code (2 when --deadline or --budget cannot be met).
    int run(Context& ctx) const;
};

// Register `kftrain estimate`.
void setup_estimate(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
