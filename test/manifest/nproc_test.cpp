#include "manifest/nproc.h"

#include <catch2/catch.hpp>
#include <limits>
#include <optional>

using kftrain::manifest::nproc_count;
using kftrain::manifest::nproc_is_word;

TEST_CASE("nprocPerNode reads as a count only when it is a positive integer", "[manifest]") {
    struct Case {
        const char* text;
        std::optional<int> count;
        bool word;
    };
    const Case cases[] = {
        {"4", 4, false},
        {"1024", 1024, false},
        {"", std::nullopt, true},
        {"auto", std::nullopt, true},
        {"cpu", std::nullopt, true},
        {"gpu", std::nullopt, true},
        {"0", std::nullopt, false},
        {"04", std::nullopt, false},
        {"-2", std::nullopt, false},
        {"2.5", std::nullopt, false},
        {"GPU", std::nullopt, false},
        // Past an int: the largest int, so validation names it as too many.
        {"99999999999999999999", std::numeric_limits<int>::max(), false},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        CHECK(nproc_count(c.text) == c.count);
        CHECK(nproc_is_word(c.text) == c.word);
    }
}
