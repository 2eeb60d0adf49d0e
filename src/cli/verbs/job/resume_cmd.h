#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace kftrain::cli {

// Register `kftrain resume`: SuspendOptions (suspend_cmd.h) with the change Resume.
void setup_resume(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
