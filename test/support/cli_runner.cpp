#include "support/cli_runner.h"

#include <catch2/catch.hpp>
#include <thread>

#include "support/paths.h"
#include "util/run.h"

namespace kftrain::test {

CliRun run_program(const std::vector<std::string>& argv, const std::string& input,
                   const std::map<std::string, std::string>& env) {
    util::RunOptions options;
    options.argv = argv;
    options.env = env;
    options.input = input;
    options.timeout = std::chrono::minutes(5);
    auto result = util::run(options);
    if (!result) {
        FAIL(result.error());
    }
    return CliRun{result->status.as_shell_code(), result->out, result->err};
}

CliRun run_kftrain(const std::vector<std::string>& args,
                   const std::map<std::string, std::string>& env, const std::string& input) {
    std::vector<std::string> argv{kftrain::test::kftrain_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_program(argv, input, env);
}

util::ExitStatus wait_exit(util::Process& process, std::chrono::seconds limit,
                           const std::function<std::string()>& printed) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (true) {
        if (auto ended = process.try_wait()) {
            return *ended;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            FAIL("the process did not end within " << limit.count() << " s\n" << printed());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

}  // namespace kftrain::test
