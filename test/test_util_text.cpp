#include <catch2/catch.hpp>

#include "util/text.h"

using kftrain::util::counted;

TEST_CASE("counted names one thing in the singular and any other count in the plural", "[util]") {
    CHECK(counted(1, "epoch") == "1 epoch");
    CHECK(counted(0, "epoch") == "0 epochs");
    CHECK(counted(2, "file") == "2 files");
    CHECK(counted(1, "process", "processes") == "1 process");
    CHECK(counted(4, "process", "processes") == "4 processes");
    CHECK(counted(-1, "step") == "-1 steps");
}
