#include "util/text.h"

#include <catch2/catch.hpp>

using kftrain::util::counted;
using kftrain::util::escape_controls;
using kftrain::util::has_controls;

TEST_CASE("counted names one thing in the singular and any other count in the plural", "[util]") {
    CHECK(counted(1, "epoch") == "1 epoch");
    CHECK(counted(0, "epoch") == "0 epochs");
    CHECK(counted(2, "file") == "2 files");
    CHECK(counted(1, "process", "processes") == "1 process");
    CHECK(counted(4, "process", "processes") == "4 processes");
    CHECK(counted(-1, "step") == "-1 steps");
}

TEST_CASE("escape_controls shows C0, DEL and C1 controls as text and keeps UTF-8", "[util]") {
    CHECK(escape_controls("a\x1b[2Jb\rc\x7f") == "a\\x1b[2Jb\\rc\\x7f");
    // U+009B is a CSI to terminals that take C1 controls: "\xc2\x9b" + "2J" clears the screen.
    CHECK(escape_controls("x\xc2\x9b"
                          "2J") == "x\\u009b2J");
    CHECK(escape_controls("caf\xc3\xa9 \xc2\xa0nbsp\nnext") == "caf\xc3\xa9 \xc2\xa0nbsp\nnext");
    CHECK(has_controls("\xc2\x85"));
    CHECK_FALSE(has_controls("caf\xc3\xa9 \xc2\xa0"));
    CHECK(escape_controls("ends in \xc2") == "ends in \xc2");
}
