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
    CHECK(escape_controls("ends in \xc2") == "ends in \\xc2");
}

TEST_CASE("bytes that are not UTF-8 and bidirectional overrides are shown as text", "[util]") {
    // A raw 0x9B (no UTF-8 lead) is a CSI to terminals in 8-bit mode.
    CHECK(escape_controls("why \x9b"
                          "2J") == "why \\x9b2J");
    CHECK(escape_controls("\xff\xfe") == "\\xff\\xfe");
    CHECK(escape_controls("\xc0\xaf") == "\\xc0\\xaf");           // an overlong '/'
    CHECK(escape_controls("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
    // U+202E (right-to-left override) makes "loss_gpj.exe" read as "loss_exe.jpg".
    CHECK(escape_controls("loss_\xe2\x80\xaegpj.exe") == "loss_\\u202egpj.exe");
    CHECK(escape_controls("a\xe2\x81\xa6"
                          "b") == "a\\u2066b");
    CHECK(has_controls("\x9b"));
    CHECK(has_controls("x\xe2\x80\xae"));
    // Four-byte characters and other punctuation of the same block stay as they are.
    CHECK(escape_controls("\xf0\x9f\x9a\x80 \xe2\x80\x94") == "\xf0\x9f\x9a\x80 \xe2\x80\x94");
    CHECK_FALSE(has_controls("\xf0\x9f\x9a\x80 \xe2\x80\x94"));
}
