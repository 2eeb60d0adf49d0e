#include <catch2/catch.hpp>

#include "support/cli_runner.h"
#include "support/test_data.h"

using kftrain::test::run_kftrain;

TEST_CASE("a flag value of the wrong type names the flag, what it takes and the value", "[cli]") {
    struct Case {
        std::vector<std::string> args;
        std::string err;
    };
    const std::vector<Case> cases = {
        {{"logs", "mnist-ddp", "--local", "--tail", "abc"},
         "kftrain: error: --tail: expected an integer (got abc)\n"
         "Run 'kftrain logs --help' for usage.\n"},
        {{"logs", "mnist-ddp", "--local", "--tail", "1.5"},
         "kftrain: error: --tail: expected an integer (got 1.5)\n"
         "Run 'kftrain logs --help' for usage.\n"},
        {{"logs", "mnist-ddp", "--local", "--tail", "99999999999"},
         "kftrain: error: --tail: out of range (got 99999999999)\n"
         "Run 'kftrain logs --help' for usage.\n"},
        {{"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.01:0.1", "--goal", "high",
          "--dry-run"},
         "kftrain: error: --goal: expected a number (got high)\n"
         "Run 'kftrain tune --help' for usage.\n"},
        {{"tune", "-f", kftrain::test::k_example_job, "--param", "lr=0.01:0.1", "--max-trials",
          "1e99", "--dry-run"},
         "kftrain: error: --max-trials: expected an integer (got 1e99)\n"
         "Run 'kftrain tune --help' for usage.\n"},
    };
    for (const auto& c : cases) {
        INFO(c.args[0] << " " << c.args[c.args.size() - 1]);
        auto run = run_kftrain(c.args);
        CHECK(run.code == 2);
        CHECK(run.out.empty());
        CHECK(run.err == c.err);
    }
}

TEST_CASE("a flag value as long as argv allows gets the same one-line error", "[cli]") {
    const std::string value(120000, 'a');
    auto run = run_kftrain({"logs", "mnist-ddp", "--local", "--tail", value});
    CHECK(run.code == 2);
    CHECK(run.out.empty());
    CHECK(run.err == "kftrain: error: --tail: expected an integer (got " + value +
                         ")\nRun 'kftrain logs --help' for usage.\n");
}
