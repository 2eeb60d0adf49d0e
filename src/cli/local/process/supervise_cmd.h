#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace kftrain::cli::local {

// Register the hidden `kftrain __supervise NAME` verb: start the detached
// supervisor of a local job (with --foreground: be it).
void setup_supervise(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli::local
