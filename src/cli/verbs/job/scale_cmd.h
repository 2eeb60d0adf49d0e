#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain scale` takes.
struct ScaleOptions {
    std::string job;
    int replicas = -1;  // --replicas: the Worker replicas wanted; -1: not given
    std::string namespace_;

    // Take the namespace.
    util::Status complete(const Context& ctx);
    // Check the job name and --replicas (>= 1); the message names the flag and the value.
    util::Status validate() const;
    // Patch the job's Worker replicas within its elasticPolicy bounds; return the exit code:
    // 0 scaled, 2 the job cannot scale or the value is outside its bounds, 3 not found,
    // 4 cluster error.
    int run(Context& ctx) const;
};

// Register `kftrain scale`.
void setup_scale(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
