#include <catch2/catch.hpp>

#include "support/cli_runner.h"
#include "support/text.h"

using kftrain::test::contains;
using kftrain::test::run_kftrain;

TEST_CASE("each verb's help names kftrain and lists the global flags", "[cli]") {
    for (const char* verb : {"submit", "status", "logs", "estimate"}) {
        SECTION(verb) {
            auto run = run_kftrain({verb, "--help"});
            CHECK(run.code == 0);
            CHECK(contains(run.out, std::string("Usage: kftrain ") + verb + " [OPTIONS]"));
            CHECK(contains(run.out, "Global options (before or after the verb):\n"));
            CHECK(contains(run.out, "-n,--namespace TEXT"));
            CHECK(contains(run.out, "--context TEXT"));
            CHECK(contains(run.out, "--local"));
            CHECK_FALSE(contains(run.out, "--version"));
        }
    }
}

TEST_CASE("a subverb's help lists the global flags, not its parent verb's", "[cli]") {
    for (const std::vector<std::string>& verb :
         {std::vector<std::string>{"tune", "status"}, {"tune", "delete"}, {"data", "put"}}) {
        SECTION(verb[0] + " " + verb[1]) {
            auto args = verb;
            args.push_back("--help");
            auto run = run_kftrain(args);
            CHECK(run.code == 0);
            const auto global = run.out.find("Global options (before or after the verb):\n");
            REQUIRE(global != std::string::npos);
            // Up to the blank line after it (tune's examples follow).
            const std::string footer =
                run.out.substr(global, run.out.find("\n\n", global) - global);
            CHECK(contains(footer, "-n,--namespace TEXT"));
            CHECK(contains(footer, "--context TEXT"));
            CHECK(contains(footer, "--local"));
            CHECK_FALSE(contains(footer, "--param"));
            CHECK_FALSE(contains(footer, "--dry-run"));
        }
    }
}

TEST_CASE("kftrain --help lists the verbs under one usage line", "[cli]") {
    auto run = run_kftrain({"--help"});
    CHECK(run.code == 0);
    CHECK(contains(run.out, "Usage: kftrain [OPTIONS] SUBCOMMAND\n"));
    CHECK(contains(run.out, "  status "));
    CHECK_FALSE(contains(run.out, "Global options"));
}
