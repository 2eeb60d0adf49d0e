#include "support/cli_runner.h"

#include <catch2/catch.hpp>

#include "util/run.h"

namespace kftrain::test {

CliRun run_kftrain(const std::vector<std::string>& args,
                   const std::map<std::string, std::string>& env, const std::string& input) {
    util::RunOptions options;
    options.argv.push_back(KFTRAIN_BINARY);
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.env = env;
    options.input = input;
    options.timeout = std::chrono::minutes(5);
    auto result = util::run(options);
    if (!result) {
        FAIL(result.error());
    }
    return CliRun{result->status.as_shell_code(), result->out, result->err};
}

}  // namespace kftrain::test
