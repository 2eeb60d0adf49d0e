#pragma once

#include <map>
#include <string>
#include <vector>

namespace kftrain::test {

// What a run of the built kftrain printed and how it ended.
struct CliRun {
    int code = -1;
    std::string out;
    std::string err;
};

// Run a program (argv[0] found on PATH) with this standard input, for at most five minutes.
CliRun run_program(const std::vector<std::string>& argv, const std::string& input = "",
                   const std::map<std::string, std::string>& env = {});

// Run the built kftrain with these arguments and extra environment variables; input, when
// given, is its standard input (else it reads /dev/null).
CliRun run_kftrain(const std::vector<std::string>& args,
                   const std::map<std::string, std::string>& env = {},
                   const std::string& input = "");

}  // namespace kftrain::test
