#include "util/stats.h"

#include <catch2/catch.hpp>
#include <vector>

using kftrain::util::median;
using kftrain::util::percentile;

TEST_CASE("a percentile interpolates between the two nearest values sorted", "[util]") {
    struct Case {
        const char* name;
        std::vector<double> values;
        double q;
        double expected;
    };
    const Case cases[] = {
        {"none", {}, 50, 0},
        {"one", {3}, 90, 3},
        {"the 50th is the median", {4, 1, 3, 2}, 50, 2.5},
        {"the 10th of 11 evenly spaced is the second", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 10, 1},
        {"between two: a tenth of the way", {1, 2}, 10, 1.1},
        {"0 and 100 are the ends", {5, 1, 9}, 100, 9},
        {"beyond 100 is held at the end", {5, 1, 9}, 150, 9},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        CHECK(percentile(c.values, c.q) == Approx(c.expected));
    }
    CHECK(percentile({5, 1, 9}, 0) == 1);
    CHECK(median({4, 1, 3, 2}) == Approx(2.5));
}
