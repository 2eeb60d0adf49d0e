// How long kftrain lets one kubectl call run, and how it prints what kubectl said.
#include <catch2/catch.hpp>

#include "backend/kube/kubectl.h"
#include "backend/kube/kubectl_errors.h"

namespace {

using kftrain::backend::kube::call_limit;
using kftrain::backend::kube::printable_line;
using std::chrono::milliseconds;
using std::chrono::seconds;

}  // namespace

TEST_CASE("Each kubectl call gets a limit from --request-timeout or its verb", "[kube]") {
    struct Case {
        const char* name;
        std::string request_timeout;
        std::vector<std::string> args;
        std::optional<milliseconds> limit;
    };
    const std::vector<Case> cases = {
        {"get: one minute", "", {"get", "pytorchjobs", "x", "-o", "json"}, seconds(60)},
        {"apply: two minutes", "", {"apply", "-f", "-"}, seconds(120)},
        {"delete that waits: five minutes",
         "",
         {"delete", "pytorchjobs", "x", "--wait=true"},
         seconds(300)},
        {"delete that does not wait",
         "",
         {"delete", "experiments", "x", "--wait=false"},
         seconds(120)},
        {"--request-timeout and a grace", "30s", {"get", "pods"}, seconds(35)},
        {"--request-timeout in whole seconds", "2", {"get", "pods"}, seconds(7)},
        {"--request-timeout in milliseconds", "500ms", {"get", "pods"}, milliseconds(5500)},
        {"--request-timeout 0: no limit", "0", {"get", "pods"}, std::nullopt},
        {"--request-timeout of 100 years", "3153600000", {"get", "pods"}, seconds(3153600000 + 5)},
        // Refused by the verb before any call; never an exception here.
        {"whole seconds past 100 years", std::string(400, '9'), {"get", "pods"}, seconds(60)},
        {"a waiting delete keeps its own limit",
         "1s",
         {"delete", "pytorchjobs", "x"},
         seconds(300)},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        CHECK(call_limit(c.request_timeout, c.args) == c.limit);
    }
}

TEST_CASE("kubectl's text is printed without control characters, cut when long", "[kube]") {
    CHECK(printable_line("plain words") == "plain words");
    CHECK(printable_line("a\x1b[2Jb\rc\td\x7f") == "a\\x1b[2Jb\\rc\\td\\x7f");
    CHECK(printable_line("caf\xc3\xa9") == "caf\xc3\xa9");  // UTF-8 stays as it is
    CHECK(printable_line(std::string(1000, 'x'), 300) ==
          std::string(300, 'x') + "... (700 more bytes)");
    // A cut never splits a character: "é" is two bytes.
    CHECK(printable_line("ab\xc3\xa9z", 3) == "ab... (3 more bytes)");
}
