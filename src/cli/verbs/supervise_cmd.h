#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace kftrain::cli {

// Register the hidden `kftrain __supervise NAME` verb that `submit --local` starts: it starts
// the detached supervisor of a local job (with --foreground: it is that supervisor).
void setup_supervise(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
