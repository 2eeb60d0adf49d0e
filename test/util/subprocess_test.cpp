#include <atomic>
#include <catch2/catch.hpp>
#include <csignal>
#include <string>

#include "util/run.h"

using kftrain::util::find_executable;
using kftrain::util::format_argv;
using kftrain::util::run;
using kftrain::util::run_streaming;
using kftrain::util::RunOptions;

namespace {

RunOptions options(std::vector<std::string> argv) {
    RunOptions o;
    o.argv = std::move(argv);
    return o;
}

}  // namespace

TEST_CASE("run collects stdout and stderr separately with the exit code", "[subprocess]") {
    auto result = run(options({"sh", "-c", "echo out; echo err >&2; exit 3"}));
    REQUIRE(result);
    CHECK(result->out == "out\n");
    CHECK(result->err == "err\n");
    CHECK(result->status.code == 3);
    CHECK_FALSE(result->status.success());
    CHECK(result->status.describe() == "exit code 3");
}

TEST_CASE("run passes arguments as they are, with no shell in between", "[subprocess]") {
    auto result = run(options({"printf", "%s|", "a b", "$HOME", "; rm -rf /", "'q'"}));
    REQUIRE(result);
    CHECK(result->out == "a b|$HOME|; rm -rf /|'q'|");
}

TEST_CASE("run feeds stdin, also when it is larger than a pipe buffer", "[subprocess]") {
    RunOptions o = options({"wc", "-c"});
    o.input = std::string(1 << 20, 'x');
    auto result = run(o);
    REQUIRE(result);
    CHECK(std::stol(result->out) == 1 << 20);
}

TEST_CASE("run survives a child that stops reading its stdin", "[subprocess]") {
    RunOptions o = options({"true"});
    o.input = std::string(1 << 20, 'x');
    auto result = run(o);
    REQUIRE(result);
    CHECK(result->status.success());
}

TEST_CASE("run reads large stdout and stderr together without blocking", "[subprocess]") {
    auto result =
        run(options({"sh", "-c", "head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2"}));
    REQUIRE(result);
    CHECK(result->out.size() == 300000);
    CHECK(result->err.size() == 300000);
}

TEST_CASE("run kills a child that outlives its timeout", "[subprocess]") {
    RunOptions o = options({"sleep", "30"});
    o.timeout = std::chrono::milliseconds(200);
    auto result = run(o);
    REQUIRE(result);
    CHECK(result->timed_out);
    CHECK(result->status.signal == SIGKILL);
}

TEST_CASE("run sets environment variables for the child", "[subprocess]") {
    RunOptions o = options({"sh", "-c", "printf %s \"$KFTRAIN_TEST_VALUE\""});
    o.env["KFTRAIN_TEST_VALUE"] = "a=b c";
    auto result = run(o);
    REQUIRE(result);
    CHECK(result->out == "a=b c");
}

TEST_CASE("a missing program is an error naming it", "[subprocess]") {
    auto result = run(options({"kftrain-no-such-program"}));
    REQUIRE_FALSE(result);
    CHECK(result.error() == "cannot run 'kftrain-no-such-program': No such file or directory");
    CHECK_FALSE(find_executable("kftrain-no-such-program"));
    CHECK(find_executable("sh"));
}

TEST_CASE("run_streaming hands over complete lines as they arrive", "[subprocess]") {
    std::vector<std::string> lines;
    auto result = run_streaming(options({"printf", "one\ntwo\nthree"}),
                                [&](const std::string& line) { lines.push_back(line); }, {});
    REQUIRE(result);
    CHECK(lines == std::vector<std::string>{"one", "two", "three"});
    CHECK(result->out.empty());
}

TEST_CASE("run_streaming stops a child when its cancel flag turns true", "[subprocess]") {
    // The child prints a line and then would run for 30 s; the flag is raised on that line.
    std::atomic<bool> cancel{false};
    RunOptions o = options({"sh", "-c", "echo ready; exec sleep 30"});
    o.cancelled = [&cancel] { return cancel.load(); };
    std::vector<std::string> lines;
    auto result = run_streaming(o,
                                [&](const std::string& line) {
                                    lines.push_back(line);
                                    cancel = true;
                                },
                                {});
    REQUIRE(result);
    CHECK(result->cancelled);
    CHECK_FALSE(result->timed_out);
    CHECK(result->status.signal == SIGKILL);
    CHECK(lines == std::vector<std::string>{"ready"});
}

TEST_CASE("format_argv quotes what a shell would split", "[subprocess]") {
    CHECK(format_argv({"kubectl", "apply", "-f", "-"}) == "kubectl apply -f -");
    CHECK(format_argv({"echo", "a b", "it's"}) == "echo 'a b' 'it'\\''s'");
}
