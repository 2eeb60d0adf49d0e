#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace kftrain::cli {

// Register `kftrain version`.
void setup_version(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
