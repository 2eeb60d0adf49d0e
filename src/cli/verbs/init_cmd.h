#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/context.h"
#include "manifest/job_kind.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain init` takes.
struct InitOptions {
    std::string name = "my-training-job";
    std::optional<std::string> kind_text;  // --kind as given
    manifest::JobKind kind = manifest::JobKind::PyTorchJob;

    // Derive nothing: init reads no cluster and no file.
    util::Status complete(const Context& ctx);
    // Check --name is a job name Kubernetes accepts and --kind a kind.
    util::Status validate();
    // Print the commented starter job file; return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain init`.
void setup_init(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
