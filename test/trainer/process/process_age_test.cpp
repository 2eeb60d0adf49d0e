#include "trainer/process/process_age.h"

#include <catch2/catch.hpp>

using namespace kftrain::trainer::process;

TEST_CASE("this process's age is known and small", "[trainer][process]") {
    const auto age = process_age_s();
    REQUIRE(age);
    CHECK(*age >= 0);
    CHECK(*age < 24 * 3600.0);  // a test binary started today
}
