#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cli/context.h"

namespace kftrain::cli {

// The whole command line: every verb with its flags and help, each verb's callback running it
// with ctx. What run_cli parses, and what shell completion and the man page walk.
std::unique_ptr<CLI::App> make_app(Context& ctx);

// Run kftrain with the arguments after the program name; return the exit code.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kftrain::cli
