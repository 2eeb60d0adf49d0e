#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cli/context.h"

namespace kftrain::cli {

// The name kftrain calls itself in usage lines, help and hints: "kubectl kftrain" when run as
// kubectl's plugin (argv[0]'s basename is kubectl-kftrain), else "kftrain".
std::string program_name(const std::string& argv0);

// The whole command line: every verb with its flags and help, each verb's callback running it
// with ctx. What run_cli parses, and what shell completion and the man page walk. program is
// the name usage lines, examples and "see '...'" hints give (program_name).
std::unique_ptr<CLI::App> make_app(Context& ctx, const std::string& program = "kftrain");

// Run kftrain, called program, with the arguments after the program name; return the exit
// code.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            const std::string& program = "kftrain");

}  // namespace kftrain::cli
