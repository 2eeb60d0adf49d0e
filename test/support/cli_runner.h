#pragma once

#include <chrono>
#include <csignal>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "util/subprocess.h"

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

// A started process, SIGKILLed and reaped if the test leaves it running.
struct Reaped {
    util::Process process;
    ~Reaped() {
        if (!process.try_wait()) {
            process.signal(SIGKILL);
            process.wait();
        }
    }
};

// Wait for a started process to end and return how it ended; fail the test, with what printed
// returns (the process's output so far), when it has not ended within limit.
util::ExitStatus wait_exit(util::Process& process, std::chrono::seconds limit,
                           const std::function<std::string()>& printed);

}  // namespace kftrain::test
