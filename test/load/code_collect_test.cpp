// Reading the folder a job ships: what is left out, links, FIFOs, modes and the hash.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <future>
#include <sstream>

#include "load/collect.h"
#include "support/files.h"

using namespace kftrain;
namespace fs = std::filesystem;

namespace {

// Collect a folder without a root; the warnings go to warn.
util::Result<manifest::CodeBundle> collect(const std::string& folder, std::ostream& warn,
                                           const std::vector<std::string>& exclude = {}) {
    auto dir = load::open_code_folder(folder, "");
    if (!dir) {
        return dir.error_value();
    }
    return load::collect_code(std::move(*dir), folder, exclude, warn);
}

std::vector<std::string> paths_of(const manifest::CodeBundle& bundle) {
    std::vector<std::string> paths;
    for (const auto& file : bundle.files) {
        paths.push_back(file.path);
    }
    return paths;
}

// A project folder as users have them: code, a helper package, a config, and what never ships.
std::string make_project() {
    const std::string dir = test::make_temp_dir() + "/proj";
    fs::create_directories(dir + "/pkg/__pycache__");
    fs::create_directories(dir + "/.git/objects");
    fs::create_directories(dir + "/env/bin");
    fs::create_directories(dir + "/data");
    test::write_file(dir + "/train.py", "import pkg.helper\n");
    test::write_file(dir + "/pkg/helper.py", "VALUE = 7\n");
    test::write_file(dir + "/pkg/__pycache__/helper.cpython-311.pyc", "compiled");
    test::write_file(dir + "/config.yaml", "lr: 0.1\n");
    test::write_file(dir + "/run.sh", "#!/bin/sh\n");
    ::chmod((dir + "/run.sh").c_str(), 0755);
    test::write_file(dir + "/.git/objects/x", "blob");
    test::write_file(dir + "/env/pyvenv.cfg", "home = /usr/bin\n");  // a virtualenv named env
    test::write_file(dir + "/env/bin/python", "");
    test::write_file(dir + "/data/big.bin", "data");
    test::write_file(dir + "/.kftrainignore", "# data stays on a claim\ndata/\n");
    return dir;
}

}  // namespace

TEST_CASE("collect ships the code and leaves out git, caches, virtualenvs and the ignore file's",
          "[job][code]") {
    const std::string dir = make_project();
    std::ostringstream warn;
    auto bundle = collect(dir, warn);
    REQUIRE(bundle);
    CHECK(paths_of(*bundle) ==
          std::vector<std::string>{"config.yaml", "pkg/helper.py", "run.sh", "train.py"});
    CHECK(bundle->files[2].executable);
    CHECK_FALSE(bundle->files[3].executable);
    CHECK(bundle->files[1].content == "VALUE = 7\n");
    CHECK(warn.str().empty());
    CHECK(bundle->hash.size() == 10);

    // The same files give the same hash; an edit gives another.
    auto again = collect(dir, warn);
    REQUIRE(again);
    CHECK(again->hash == bundle->hash);
    test::write_file(dir + "/pkg/helper.py", "VALUE = 8\n");
    auto edited = collect(dir, warn);
    REQUIRE(edited);
    CHECK(edited->hash != bundle->hash);

    auto fewer = collect(dir, warn, {"*.yaml"});
    REQUIRE(fewer);
    CHECK(paths_of(*fewer) == std::vector<std::string>{"pkg/helper.py", "run.sh", "train.py"});
}

TEST_CASE("collect skips a FIFO with a warning and copies a link to a file of the folder",
          "[job][code]") {
    const std::string dir = test::make_temp_dir() + "/proj";
    fs::create_directories(dir);
    test::write_file(dir + "/train.py", "print(1)\n");
    REQUIRE(::mkfifo((dir + "/pipe").c_str(), 0600) == 0);
    fs::create_symlink("train.py", dir + "/main.py");
    std::ostringstream warn;
    auto bundle = collect(dir, warn);
    REQUIRE(bundle);
    CHECK(paths_of(*bundle) == std::vector<std::string>{"main.py", "train.py"});
    CHECK(bundle->files[0].content == "print(1)\n");
    CHECK(warn.str() ==
          "kftrain: warning: code: skipped pipe: not a file or folder (a FIFO, device or "
          "socket)\n");
}

TEST_CASE("collect skips a .kftrainignore that is a FIFO or a folder, with a warning, unblocked",
          "[job][code]") {
    const std::string dir = test::make_temp_dir() + "/proj";
    fs::create_directories(dir);
    test::write_file(dir + "/train.py", "print(1)\n");
    const std::string ignore = dir + "/.kftrainignore";
    REQUIRE(::mkfifo(ignore.c_str(), 0600) == 0);
    std::ostringstream warn;
    auto collecting = std::async(std::launch::async, [&] { return collect(dir, warn); });
    // Bounded where the FIFO would be opened blocking: a writer that comes and goes unblocks it,
    // and the case fails rather than hangs.
    const bool in_time = collecting.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    if (!in_time) {
        const int writer = ::open(ignore.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (writer >= 0) {
            ::close(writer);
        }
    }
    auto bundle = collecting.get();
    CHECK(in_time);
    REQUIRE(bundle);
    CHECK(paths_of(*bundle) == std::vector<std::string>{"train.py"});
    const std::string skipped = "kftrain: warning: code: skipped " + ignore +
                                ": not a regular file (a FIFO, device, socket or folder); no "
                                "patterns read from it\n";
    CHECK(warn.str() == skipped);

    fs::remove(ignore);
    fs::create_directories(ignore);
    std::ostringstream folder_warn;
    auto with_folder = collect(dir, folder_warn);
    REQUIRE(with_folder);
    CHECK(paths_of(*with_folder) == std::vector<std::string>{"train.py"});
    CHECK(folder_warn.str() == skipped);
}

TEST_CASE("collect refuses a link out of the folder and a name no volume can hold", "[job][code]") {
    const std::string dir = test::make_temp_dir() + "/proj";
    fs::create_directories(dir);
    fs::create_symlink("/etc/passwd", dir + "/passwd");
    std::ostringstream warn;
    auto out = collect(dir, warn);
    REQUIRE_FALSE(out);
    CHECK(out.error_code(0) == 2);
    CHECK(out.error() == "code.path: passwd in " + dir +
                             " is a link leading out of the folder (to /etc/passwd): copy what "
                             "it points to into the folder, or leave it out with code.exclude");
    fs::remove(dir + "/passwd");
    test::write_file(dir + "/bad\nname", "");
    auto bad = collect(dir, warn);
    REQUIRE_FALSE(bad);
    CHECK(bad.error() == "code.path: bad\\x0aname in " + dir +
                             " holds a control character: rename it, or leave it out with "
                             "code.exclude or .kftrainignore");
    auto missing = collect(dir + "/nope", warn);
    REQUIRE_FALSE(missing);
    CHECK(missing.error() == "code.path: " + dir + "/nope: No such file or directory");
}

TEST_CASE("with a root, a code folder outside it or reached through a link is refused",
          "[job][code]") {
    const std::string root = test::make_temp_dir();
    fs::create_directories(root + "/proj");
    fs::create_symlink("/etc", root + "/etc-link");
    CHECK(load::open_code_folder("proj", root));
    CHECK(load::open_code_folder(root + "/proj", root));
    for (const std::string& folder :
         {std::string("/etc"), std::string("../"), std::string("etc-link"), root + "/../etc"}) {
        CAPTURE(folder);
        auto refused = load::open_code_folder(folder, root);
        REQUIRE_FALSE(refused);
        CHECK(refused.error_code(0) == 2);
        CHECK(refused.error().find("is not a folder inside the server's root") !=
              std::string::npos);
    }
}
