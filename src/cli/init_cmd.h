#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace kftrain::cli {

// Register `kftrain init`.
void setup_init(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
