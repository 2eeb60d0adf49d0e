// The one link-safe walk (util::open_dir_beneath) and the one descriptor owner (util::UniqueFd)
// that every copy into or out of a claim, and the MCP server's job_file reads, stand on.
#include "util/fd/dir_beneath.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>

#include "support/files.h"
#include "util/fd/unique_fd.h"

namespace {

namespace fs = std::filesystem;
using kftrain::test::make_temp_dir;
using kftrain::util::open_dir_beneath;
using kftrain::util::UniqueFd;

UniqueFd open_dir(const std::string& path) {
    return UniqueFd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

// Tell whether fd is an open descriptor of this process.
bool is_open(int fd) {
    return ::fcntl(fd, F_GETFD) != -1;
}

}  // namespace

TEST_CASE("open_dir_beneath opens and, when asked, makes the directory a path names", "[util]") {
    const std::string root = make_temp_dir();
    const UniqueFd top = open_dir(root);
    auto missing = open_dir_beneath(top.get(), "a/b", false);
    CHECK_FALSE(missing.fd);
    CHECK(missing.stop.walked == "a");
    CHECK(missing.stop.error == ENOENT);

    auto made = open_dir_beneath(top.get(), "/a//./b/", true);
    REQUIRE(made.fd);
    CHECK(fs::is_directory(root + "/a/b"));
    struct stat st {};
    struct stat expected {};
    REQUIRE(::fstat(made.fd.get(), &st) == 0);
    REQUIRE(::stat((root + "/a/b").c_str(), &expected) == 0);
    CHECK(st.st_ino == expected.st_ino);
    CHECK(is_open(top.get()));  // the caller's directory stays open
}

TEST_CASE("open_dir_beneath stops at a symlink, a file or '..' and says where", "[util]") {
    const std::string root = make_temp_dir();
    const std::string outside = make_temp_dir();
    fs::create_directories(root + "/runs");
    fs::create_symlink(outside, root + "/runs/latest");
    kftrain::test::write_file(root + "/file", "x");
    const UniqueFd top = open_dir(root);

    auto link = open_dir_beneath(top.get(), "runs/latest/deeper", true);
    CHECK_FALSE(link.fd);
    CHECK(link.stop.walked == "runs/latest");
    CHECK(link.stop.not_a_directory());
    CHECK(fs::is_empty(outside));
    auto file = open_dir_beneath(top.get(), "file/x", true);
    CHECK(file.stop.walked == "file");
    CHECK(file.stop.not_a_directory());
    auto up = open_dir_beneath(top.get(), "runs/../..", false);
    CHECK(up.stop.walked == "runs/..");
    CHECK(up.stop.error == EXDEV);
}

TEST_CASE("UniqueFd closes its descriptor once, and not one it released", "[util]") {
    int raw = -1;
    {
        UniqueFd first(::open("/dev/null", O_RDONLY | O_CLOEXEC));
        raw = first.get();
        REQUIRE(is_open(raw));
        UniqueFd second = std::move(first);
        CHECK_FALSE(first);
        CHECK(second.get() == raw);
    }
    CHECK_FALSE(is_open(raw));

    UniqueFd kept(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    const int released = kept.release();
    CHECK_FALSE(kept);
    CHECK(is_open(released));
    UniqueFd again(released);
    errno = EACCES;
    again.reset();
    CHECK(errno == EACCES);  // an error path can still read why it failed
    CHECK_FALSE(is_open(released));
}
