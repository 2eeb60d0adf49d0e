#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain delete` takes.
struct DeleteOptions {
    std::string job;
    bool wait = false;
    bool force = false;      // local: delete whatever state.json says, stopping what it can
    std::string namespace_;  // derived: -n, else kubectl's

    // Take the namespace from the global flags.
    util::Status complete(const Context& ctx);
    // Accept every combination: --force is checked against the backend in run().
    util::Status validate() const;
    // Delete the job and stop its replicas; return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain delete`.
void setup_delete(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
