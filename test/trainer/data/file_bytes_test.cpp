#include "trainer/data/file_bytes.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "support/files.h"
#include "util/files.h"

using kftrain::test::make_temp_dir;
using kftrain::test::write_file;
using namespace kftrain::trainer::data;
using kftrain::util::write_file_atomic;

TEST_CASE("write_file_atomic replaces the file and leaves no temporary", "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    write_file(dir + "/a.pt", "old");
    REQUIRE(write_file_atomic(dir + "/a.pt", "new contents", k_file_mode).ok());
    CHECK(*read_file_bytes(dir + "/a.pt") == "new contents");
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        (void)entry;
        files += 1;
    }
    CHECK(files == 1);
}

TEST_CASE("write_file_atomic reports a directory that does not exist", "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    auto r = write_file_atomic(dir + "/missing/a.pt", "x", k_file_mode);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error() == "cannot write " + dir + "/missing/a.pt: No such file or directory");
}

TEST_CASE("The trainer's files are written for the job's other programs to read",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    const mode_t old_mask = ::umask(022);
    auto written = write_file_atomic(dir + "/ckpt-00000001.pt", "x", k_file_mode);
    ::umask(old_mask);
    REQUIRE(written.ok());
    struct stat st {};
    REQUIRE(::stat((dir + "/ckpt-00000001.pt").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0644);
}
