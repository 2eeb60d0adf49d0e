// Reading the folder a job ships: what is left out, links, FIFOs, modes and the hash.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

TEST_CASE("collect honours .gitignore, a nested one under its own folder, and ** at any depth",
          "[job][code]") {
    const std::string dir = test::make_temp_dir() + "/proj";
    fs::create_directories(dir + "/pkg/logs/deep");
    fs::create_directories(dir + "/out/run1");
    test::write_file(dir + "/train.py", "");
    test::write_file(dir + "/notes.tmp", "");
    test::write_file(dir + "/pkg/helper.py", "");
    test::write_file(dir + "/pkg/cache.bin", "");
    test::write_file(dir + "/pkg/logs/deep/a.log", "");
    test::write_file(dir + "/pkg/logs/keep.log", "");
    test::write_file(dir + "/out/run1/model.ckpt", "");
    test::write_file(dir + "/out/README", "");
    test::write_file(dir + "/.gitignore", "*.tmp\n/cache.bin\n");
    // Relative to pkg/: "/cache.bin" here is pkg/cache.bin, the top one's is not.
    test::write_file(dir + "/pkg/.gitignore", "/cache.bin\n");
    test::write_file(dir + "/.kftrainignore", "**/deep/\nout/**\n!out/README\n");
    std::ostringstream warn;
    auto bundle = collect(dir, warn);
    REQUIRE(bundle);
    CHECK(paths_of(*bundle) == std::vector<std::string>{".gitignore", "out/README",
                                                        "pkg/.gitignore", "pkg/helper.py",
                                                        "pkg/logs/keep.log", "train.py"});
    CHECK(warn.str().empty());
    // code.exclude comes last: its "!" brings back what .gitignore left out.
    auto back = collect(dir, warn, {"!notes.tmp"});
    REQUIRE(back);
    const auto paths = paths_of(*back);
    CHECK(std::count(paths.begin(), paths.end(), "notes.tmp") == 1);
}

TEST_CASE("collect leaves out what may hold secrets with one note, and '!' brings one back",
          "[job][code]") {
    const std::string dir = test::make_temp_dir() + "/proj";
    fs::create_directories(dir + "/.ssh");
    fs::create_directories(dir + "/certs");
    test::write_file(dir + "/train.py", "");
    test::write_file(dir + "/.env", "TOKEN=x\n");
    test::write_file(dir + "/.env.example", "TOKEN=\n");
    test::write_file(dir + "/.ssh/id_rsa", "key");
    test::write_file(dir + "/certs/server.pem", "pem");
    test::write_file(dir + "/.netrc", "machine x password y\n");
    std::ostringstream warn;
    auto bundle = collect(dir, warn);
    REQUIRE(bundle);
    CHECK(paths_of(*bundle) == std::vector<std::string>{"train.py"});
    CHECK(warn.str() ==
          "kftrain: note: code: left out what may hold secrets: .env, .env.example, .netrc, "
          ".ssh/, certs/server.pem; a \"!\" line in .kftrainignore or code.exclude (\"!.env\") "
          "brings one back (docs/code.md)\n");
    // The user's own "!" brings one back; a .gitignore's does not (git's tracking is not a
    // choice to ship a secret).
    test::write_file(dir + "/.gitignore", "!.netrc\n");
    test::write_file(dir + "/.kftrainignore", "!.env.example\n");
    std::ostringstream back_warn;
    auto back = collect(dir, back_warn, {"!certs/server.pem"});
    REQUIRE(back);
    CHECK(paths_of(*back) ==
          std::vector<std::string>{".env.example", ".gitignore", "certs/server.pem", "train.py"});
    CHECK(back_warn.str() ==
          "kftrain: note: code: left out what may hold secrets: .env, .netrc, .ssh/; a \"!\" "
          "line in .kftrainignore or code.exclude (\"!.env\") brings one back (docs/code.md)\n");
}

TEST_CASE("collect skips names starting with .. with a warning and never ships them",
          "[job][code]") {
    const std::string dir = test::make_temp_dir() + "/proj";
    fs::create_directories(dir + "/..2026_01_01");
    fs::create_directories(dir + "/pkg");
    test::write_file(dir + "/..2026_01_01/train.py", "");
    test::write_file(dir + "/..foo", "");
    test::write_file(dir + "/...", "");
    test::write_file(dir + "/pkg/..data", "");
    test::write_file(dir + "/train.py", "");
    std::ostringstream warn;
    auto bundle = collect(dir, warn);
    REQUIRE(bundle);
    CHECK(paths_of(*bundle) == std::vector<std::string>{"train.py"});
    const std::string why =
        ": a name starting with \"..\" cannot be a file in a ConfigMap volume (the API server "
        "refuses it as a key and an item path; the kubelet keeps its own ..data there)\n";
    CHECK(warn.str() == "kftrain: warning: code: skipped ..." + why +
                            "kftrain: warning: code: skipped ..2026_01_01" + why +
                            "kftrain: warning: code: skipped ..foo" + why +
                            "kftrain: warning: code: skipped pkg/..data" + why);
}
