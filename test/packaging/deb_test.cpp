// cpack -G DEB of this build: the kftrain .deb's control fields and contents. make package
// packs a Release build; this test packs the build under test (in CI the sanitized one, whose
// Depends also name libasan and libubsan), which has the same layout and the same
// dpkg-shlibdeps step. Only the cli component is packed: the trainer's libtorch would make it
// slow.
#include <catch2/catch.hpp>
#include <filesystem>

#include "support/cli_runner.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/text.h"
#include "util/run.h"
#include "util/text.h"

namespace fs = std::filesystem;
using kftrain::test::CliRun;
using kftrain::test::contains;
using kftrain::test::run_program;

namespace {

// Return the value of a control field ("Depends") as dpkg-deb -I prints it.
std::string field(const std::string& info, const std::string& name) {
    const std::string key = "\n " + name + ": ";
    const size_t at = info.find(key);
    if (at == std::string::npos) {
        return "";
    }
    const size_t start = at + key.size();
    return info.substr(start, info.find('\n', start) - start);
}

}  // namespace

TEST_CASE(
    "cpack -G DEB makes kftrain_<version>_<arch>.deb with Debian Depends and the "
    "installed layout",
    "[packaging]") {
    const std::string out = kftrain::test::make_temp_dir();
    const CliRun pack = run_program({kftrain::test::cpack_command(), "-G", "DEB", "--config",
                                     std::string(kftrain::test::build_dir()) + "/CPackConfig.cmake",
                                     "-B", out, "-D", "CPACK_COMPONENTS_ALL=cli"});
    INFO(pack.out << pack.err);
    REQUIRE(pack.code == 0);
    const CliRun arch = run_program({"dpkg", "--print-architecture"});
    REQUIRE(arch.code == 0);
    const fs::path deb = fs::path(out) / (std::string("kftrain_") + KFTRAIN_VERSION + "_" +
                                          kftrain::util::trim(arch.out) + ".deb");
    REQUIRE(fs::is_regular_file(deb));

    const CliRun info = run_program({"dpkg-deb", "-I", deb});
    REQUIRE(info.code == 0);
    INFO(info.out);
    CHECK(field(info.out, "Package") == "kftrain");
    CHECK(field(info.out, "Version") == KFTRAIN_VERSION);
    CHECK(field(info.out, "Section") == "devel");
    CHECK(contains(field(info.out, "Maintainer"), "<"));
    CHECK(field(info.out, "Description") ==
          "train PyTorch models across many machines with Kubeflow");
    CHECK(contains(info.out, "kftrain is a kubectl-style command-line tool."));
    const std::string depends = field(info.out, "Depends");
    for (const char* library :
         {"libc6 (>=", "libstdc++6 (>=", "libyaml-cpp0.7 (>=", "libfmt9 (>="}) {
        CHECK(contains(depends, library));
    }
    CHECK(contains(field(info.out, "Recommends"), "kubectl"));

    const CliRun contents = run_program({"dpkg-deb", "--contents", deb});
    REQUIRE(contents.code == 0);
    INFO(contents.out);
    for (const char* path :
         {"./usr/bin/kftrain\n", "./usr/bin/kubectl-kftrain -> kftrain\n",
          "./usr/share/kftrain/templates/pytorchjob.yaml\n",
          "./usr/share/kftrain/templates/trainjob.yaml\n",
          "./usr/share/doc/kftrain/examples/mnist-ddp.yaml\n",
          "./usr/share/doc/kftrain/copyright\n", "./usr/share/man/man1/kftrain.1.gz\n",
          "./usr/share/bash-completion/completions/kftrain\n",
          "./usr/share/zsh/vendor-completions/_kftrain\n",
          "./usr/share/fish/vendor_completions.d/kftrain.fish\n"}) {
        CHECK(contains(contents.out, path));
    }
    CHECK_FALSE(contains(contents.out, "kftrain-trainer"));
    CHECK_FALSE(contains(contents.out, "kftrain-man-page"));
}
