#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/job_input.h"
#include "estimate/plan.h"
#include "estimate/report.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain estimate` takes, as typed on the command line.
struct EstimateOptions {
    JobInput job;
    std::string profile;
    std::string workers;
    std::string gpu;
    std::string network;
    std::string intra_node_network;
    std::string latency;
    std::string replicas_per_node;
    std::string overhead;
    std::string prices;
    std::string deadline;
    std::string budget;
    std::string output = "table";
};

// The flags of estimate, parsed: the plan's flags and the goal.
struct EstimateRequest {
    estimate::PlanFlags flags;
    std::optional<estimate::Goal> goal;
};

// Register `kftrain estimate`.
void setup_estimate(CLI::App& app, Context& ctx);

// Parse the flags of estimate; errors name the flag and the value.
util::Result<EstimateRequest> parse_estimate_options(const EstimateOptions& options);

// Print the estimate for a job with its parsed flags; return the exit code.
int run_estimate(const EstimateOptions& options, EstimateRequest request, Context& ctx);

}  // namespace kftrain::cli
