#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace kftrain::cli {

// Run kftrain with the arguments after the program name; return the exit code.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kftrain::cli
