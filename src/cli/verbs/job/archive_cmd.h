#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain archive` takes.
struct ArchiveOptions {
    std::string job;

    // Derived by complete().
    std::string namespace_;

    // Take the namespace.
    util::Status complete(const Context& ctx);
    // Check the job name.
    util::Status validate();
    // Keep the record of the finished job now and print its path; return the exit code: 0
    // kept (or kept already), 1 the job has not finished, 2 a local job, 3 not found.
    int run(Context& ctx) const;
};

// Register `kftrain archive`.
void setup_archive(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
