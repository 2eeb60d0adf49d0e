// packaging/image/collect-runtime.sh: the file tree the trainer and CLI images are made of (the
// runtime stages of Dockerfile.trainer and Dockerfile.cli copy it whole). Checked on the kftrain
// binary, without podman; scripts/check-image.sh and scripts/check-cli-image.sh check the real
// images.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <sstream>

#include "support/cli_runner.h"
#include "support/files.h"
#include "support/paths.h"

namespace fs = std::filesystem;
using kftrain::test::CliRun;
using kftrain::test::run_program;

namespace {

// The paths `ldd`-style output resolves libraries to ("name => /path (address)" and the
// loader's "/path (address)").
std::vector<std::string> listed_paths(const std::string& listing) {
    std::vector<std::string> paths;
    std::istringstream lines(listing);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string first, second, third;
        words >> first >> second >> third;
        if (second == "=>" && !third.empty() && third[0] == '/') {
            paths.push_back(third);
        } else if (!first.empty() && first[0] == '/') {
            paths.push_back(first);
        }
    }
    return paths;
}

// The loader's own line in `ldd` output: "/lib64/ld-linux-x86-64.so.2 (address)".
std::string loader_path(const std::string& listing) {
    std::istringstream lines(listing);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string first, second;
        words >> first >> second;
        if (!first.empty() && first[0] == '/' && second != "=>") {
            return first;
        }
    }
    return {};
}

// Follow PATH's symbolic links as a process chrooted into ROOT would; return the file they end
// at (under ROOT), or an empty path when the chain breaks or leaves ROOT's files.
fs::path resolve_in(const fs::path& root, fs::path path) {
    for (int hops = 0; hops < 40; ++hops) {
        // The directories may themselves be links (merged /usr: /lib -> usr/lib).
        fs::path dir = "/";
        for (const auto& part : path.parent_path().relative_path()) {
            dir /= part;
            std::error_code ec;
            if (fs::is_symlink(root / dir.relative_path(), ec)) {
                const fs::path target = fs::read_symlink(root / dir.relative_path());
                dir = target.is_absolute() ? target : dir.parent_path() / target;
            }
        }
        path = (dir / path.filename()).lexically_normal();
        const fs::path here = root / path.relative_path();
        std::error_code ec;
        if (fs::is_symlink(here, ec)) {
            const fs::path target = fs::read_symlink(here);
            path = target.is_absolute() ? target : path.parent_path() / target;
            continue;
        }
        return fs::is_regular_file(here, ec) ? here : fs::path{};
    }
    return {};
}

}  // namespace

TEST_CASE(
    "collect-runtime.sh gathers a program, every library it loads and the CA certificates "
    "into a tree the loader needs nothing outside of",
    "[packaging][image]") {
    const fs::path root = fs::path(kftrain::test::make_temp_dir()) / "root";
    const std::string script =
        std::string(kftrain::test::source_dir()) + "/packaging/image/collect-runtime.sh";
    const CliRun collect = run_program({script, kftrain::test::kftrain_binary(), root.string()});
    INFO(collect.out << collect.err);
    REQUIRE(collect.code == 0);

    // Each program lands under its own file name.
    const fs::path program =
        root / "usr/local/bin" / fs::path(kftrain::test::kftrain_binary()).filename();
    REQUIRE(fs::is_regular_file(program));
    CHECK((fs::status(program).permissions() & fs::perms::owner_exec) != fs::perms::none);
    CHECK(fs::file_size(root / "etc/ssl/certs/ca-certificates.crt") > 0);
    CHECK(fs::is_regular_file(root / "etc/passwd"));
    CHECK((fs::status(root / "tmp").permissions() & fs::perms::mask) == fs::perms(01777));

    // Every library ldd finds here is in the tree at the same path, as a file or as the same
    // chain of links ending at a file.
    const CliRun ldd = run_program({"ldd", kftrain::test::kftrain_binary()});
    REQUIRE(ldd.code == 0);
    const auto libraries = listed_paths(ldd.out);
    REQUIRE(libraries.size() > 3);
    for (const auto& library : libraries) {
        INFO(library);
        CHECK(!resolve_in(root, library).empty());
    }

    // The loader, searching only the tree's library directories, finds every library there.
    std::set<std::string> dirs;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        if (entry.path().filename().string().find(".so") != std::string::npos) {
            dirs.insert(entry.path().parent_path().string());
        }
    }
    std::string library_path;
    for (const auto& dir : dirs) {
        library_path += (library_path.empty() ? "" : ":") + dir;
    }
    const std::string loader = loader_path(ldd.out);
    REQUIRE(!loader.empty());
    const CliRun listed = run_program(
        {loader, "--inhibit-cache", "--library-path", library_path, "--list", program.string()});
    INFO(listed.out << listed.err);
    REQUIRE(listed.code == 0);
    CHECK(listed.out.find("not found") == std::string::npos);
    for (const auto& path : listed_paths(listed.out)) {
        if (path != loader) {
            INFO(path);
            CHECK(path.rfind(root.string() + "/", 0) == 0);
        }
    }
    fs::remove_all(root.parent_path());
}
