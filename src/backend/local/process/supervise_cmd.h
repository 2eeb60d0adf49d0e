#pragma once

#include <CLI/CLI.hpp>

#include "job/context.h"

namespace kftrain::backend::local {

// Register the hidden `kftrain __supervise NAME` verb: start the detached
// supervisor of a local job (with --foreground: be it).
void setup_supervise(CLI::App& app, job::Context& ctx);

}  // namespace kftrain::backend::local
