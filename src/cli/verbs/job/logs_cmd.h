#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace kftrain::cli {

// Register `kftrain logs`.
void setup_logs(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
