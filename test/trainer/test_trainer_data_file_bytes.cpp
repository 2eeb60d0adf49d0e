#include <catch2/catch.hpp>
#include <filesystem>

#include "temp_dir.h"
#include "trainer/data/file_bytes.h"

using namespace kftrain::trainer::data;

TEST_CASE("write_file_atomic replaces the file and leaves no temporary", "[trainer][checkpoint]") {
    TempDir dir;
    write_text(dir.file("a.pt"), "old");
    REQUIRE(write_file_atomic(dir.file("a.pt"), "new contents").ok());
    CHECK(*read_file_bytes(dir.file("a.pt")) == "new contents");
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
        (void)entry;
        files += 1;
    }
    CHECK(files == 1);
}

TEST_CASE("write_file_atomic reports a directory that does not exist", "[trainer][checkpoint]") {
    TempDir dir;
    auto r = write_file_atomic(dir.file("missing/a.pt"), "x");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().find("cannot create") == 0);
}
