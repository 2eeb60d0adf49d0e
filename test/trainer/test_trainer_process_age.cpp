#include <catch2/catch.hpp>

#include "trainer/process/process_age.h"

using namespace kftrain::trainer::process;

TEST_CASE("the start time is read after the command name, whatever that name holds",
          "[trainer][process]") {
    const std::string rest =
        " S 1 100 100 0 -1 4194560 1234 0 0 0 10 5 0 0 20 0 3 0 98765 "
        "1000000 300 18446744073709551615";
    CHECK(stat_start_ticks("4242 (kftrain-trainer)" + rest) == 98765);
    CHECK(stat_start_ticks("4242 (a name) with (parens)" + rest) == 98765);
    CHECK_FALSE(stat_start_ticks("4242 no parentheses at all"));
    CHECK_FALSE(stat_start_ticks("4242 (short) S 1 2 3"));
    CHECK_FALSE(
        stat_start_ticks("4242 (bad) S 1 100 100 0 -1 4194560 1234 0 0 0 10 5 0 0 20 0 3 0 "
                         "12x4 1000000"));
    CHECK_FALSE(stat_start_ticks(""));
}

TEST_CASE("this process's age is known and small", "[trainer][process]") {
    const auto age = process_age_s();
    REQUIRE(age);
    CHECK(*age >= 0);
    CHECK(*age < 24 * 3600.0);  // a test binary started today
}
