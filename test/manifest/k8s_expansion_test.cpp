#include <catch2/catch.hpp>

#include "manifest/k8s/expansion.h"

using kftrain::manifest::expand_references;

TEST_CASE("$(NAME) in a command expands as the kubelet expands it", "[manifest][k8s]") {
    const std::map<std::string, std::string> env = {
        {"VAR_A", "A"}, {"VAR_B", "B"}, {"VAR_EMPTY", ""}, {"COORDINATOR_PORT", "6666"}};
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"$(VAR_A)", "A"},
        {"___$(VAR_B)___", "___B___"},
        {"$(VAR_A)-$(VAR_B)", "A-B"},
        {"host:$(COORDINATOR_PORT)", "host:6666"},
        {"$(VAR_EMPTY)x", "x"},
        {"$(VAR_UNDEFINED)", "$(VAR_UNDEFINED)"},  // left as written
        {"$$(VAR_A)", "$(VAR_A)"},                 // $$ escapes the reference
        {"$$$$(VAR_A)", "$$(VAR_A)"},
        {"$$$(VAR_A)", "$A"},
        {"$(VAR_A", "$(VAR_A"},  // unclosed
        {"$", "$"},
        {"$VAR_A", "$VAR_A"},
        {"$()", "$()"},
        {"$(VAR_A)$", "A$"},
        {"f000-$$VAR_A", "f000-$VAR_A"},
        {"no references", "no references"},
        {"", ""},
    };
    for (const auto& [text, expanded] : cases) {
        INFO(text);
        CHECK(expand_references(text, env) == expanded);
    }
}
