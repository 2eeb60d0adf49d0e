// cmake --install of this build, and kftrain run as kubectl's plugin (kubectl-kftrain).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cli/app.h"
#include "support/cli_runner.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/text.h"

namespace fs = std::filesystem;
using kftrain::test::CliRun;
using kftrain::test::contains;
using kftrain::test::run_program;

namespace {

bool is_executable(const fs::path& path) {
    return ::access(path.c_str(), X_OK) == 0;
}

// Install this build under a fresh prefix and return the prefix.
fs::path install_build() {
    const fs::path prefix = fs::path(kftrain::test::make_temp_dir()) / "usr";
    const CliRun install = run_program({kftrain::test::cmake_command(), "--install",
                                        kftrain::test::build_dir(), "--prefix", prefix});
    INFO(install.out << install.err);
    REQUIRE(install.code == 0);
    return prefix;
}

// The visible verbs and subverbs of kftrain, as "render", "tune status".
std::vector<std::string> verbs(const CLI::App& app, const std::string& path = "") {
    std::vector<std::string> found;
    for (const CLI::App* sub : app.get_subcommands(
             [](const CLI::App* s) { return !s->get_name().empty() && !s->get_group().empty(); })) {
        const std::string name = path.empty() ? sub->get_name() : path + " " + sub->get_name();
        found.push_back(name);
        for (const std::string& below : verbs(*sub, name)) {
            found.push_back(below);
        }
    }
    return found;
}

}  // namespace

TEST_CASE(
    "cmake --install lays out kftrain, kubectl-kftrain, templates, examples, "
    "completions, the Grafana dashboard and the man page",
    "[packaging]") {
    const fs::path prefix = install_build();

    const fs::path kftrain = prefix / "bin/kftrain";
    CHECK(is_executable(kftrain));
    const fs::path plugin = prefix / "bin/kubectl-kftrain";
    CHECK(is_executable(plugin));
    if (fs::is_symlink(plugin)) {
        CHECK(fs::read_symlink(plugin) == "kftrain");
    }
    CHECK(is_executable(prefix / "bin/kftrain-trainer") ==
          (kftrain::test::installs_trainer() == 1));

    for (const char* name : {"pytorchjob.yaml", "trainjob.yaml"}) {
        INFO(name);
        CHECK(
            kftrain::test::read_bytes(prefix / "share/kftrain/templates" / name) ==
            kftrain::test::read_bytes(fs::path(kftrain::test::source_dir()) / "templates" / name));
    }
    CHECK(kftrain::test::read_bytes(prefix / "share/doc/kftrain/examples/mnist-ddp.yaml") ==
          kftrain::test::read_bytes(fs::path(kftrain::test::source_dir()) /
                                    "examples/mnist-ddp.yaml"));
    CHECK(fs::is_regular_file(prefix / "share/doc/kftrain/copyright"));
    CHECK(kftrain::test::read_bytes(prefix / "share/kftrain/grafana/kftrain.json") ==
          kftrain::test::read_bytes(fs::path(kftrain::test::source_dir()) /
                                    "packaging/grafana/kftrain.json"));

    // The completions are what the installed kftrain prints.
    const std::map<std::string, fs::path> completions = {
        {"bash", "share/bash-completion/completions/kftrain"},
        {"zsh", "share/zsh/vendor-completions/_kftrain"},
        {"fish", "share/fish/vendor_completions.d/kftrain.fish"}};
    for (const auto& [shell, path] : completions) {
        INFO(shell);
        const CliRun printed = run_program({kftrain, "completion", shell});
        REQUIRE(printed.code == 0);
        CHECK_FALSE(printed.out.empty());
        CHECK(kftrain::test::read_bytes(prefix / path) == printed.out);
    }

    // The man page documents every verb and renders without roff warnings.
    const fs::path man = prefix / "share/man/man1/kftrain.1.gz";
    REQUIRE(fs::is_regular_file(man));
    const CliRun page = run_program({"gzip", "-dc", man});
    REQUIRE(page.code == 0);
    std::ostringstream unused;
    kftrain::cli::Context ctx{unused, unused, {}, 0};
    const auto app = kftrain::cli::make_app(ctx);
    const std::vector<std::string> documented = verbs(*app);
    CHECK(documented.size() >= 14);
    for (const std::string& verb : documented) {
        INFO(verb);
        CHECK(contains(page.out, ".SS\nkftrain " + verb));
    }
    const std::string unpacked = kftrain::test::make_temp_dir() + "/kftrain.1";
    kftrain::test::write_file(unpacked, page.out);
    const CliRun groff = run_program({"groff", "-man", "-Tutf8", "-ww", "-z", unpacked});
    CHECK(groff.code == 0);
    CHECK(groff.err == "");

    // The installed programs run.
    const CliRun version = run_program({kftrain, "version"});
    CHECK(version.code == 0);
    CHECK(contains(version.out, std::string("kftrain ") + KFTRAIN_VERSION + "\n"));
    const CliRun help = run_program({plugin, "--help"});
    CHECK(help.code == 0);
    CHECK(contains(help.out, "Usage: kubectl kftrain [OPTIONS] SUBCOMMAND\n"));
}

TEST_CASE("run as kubectl-kftrain, kftrain names itself kubectl kftrain in help and hints",
          "[packaging]") {
    const fs::path plugin = fs::path(kftrain::test::build_dir()) / "kubectl-kftrain";
    REQUIRE(fs::exists(plugin));

    const CliRun help = run_program({plugin, "--help"});
    CHECK(help.code == 0);
    CHECK(contains(help.out, "Usage: kubectl kftrain [OPTIONS] SUBCOMMAND\n"));
    CHECK(contains(help.out, "  kubectl kftrain render -f examples/mnist-ddp.yaml\n"));
    CHECK_FALSE(contains(help.out, "\n  kftrain "));

    const CliRun submit = run_program({plugin, "submit", "--help"});
    CHECK(submit.code == 0);
    CHECK(contains(submit.out, "Usage: kubectl kftrain submit [OPTIONS]"));
    CHECK(contains(submit.out, "see 'kubectl kftrain init'"));
    CHECK_FALSE(contains(submit.out, "\n  kftrain "));

    const CliRun unknown = run_program({plugin, "sbumit"});
    CHECK(unknown.code == 2);
    CHECK(contains(unknown.err, "kftrain: error: unknown command sbumit"));
    CHECK(contains(unknown.err, "Run 'kubectl kftrain --help' for usage.\n"));

    const CliRun bad_flag = run_program({plugin, "status", "--bogus"});
    CHECK(bad_flag.code == 2);
    CHECK(contains(bad_flag.err, "Run 'kubectl kftrain status --help' for usage.\n"));

    // As kftrain, nothing changes.
    const CliRun plain = kftrain::test::run_kftrain({"submit", "--help"});
    CHECK(contains(plain.out, "Usage: kftrain submit [OPTIONS]"));
    CHECK(contains(plain.out, "see 'kftrain init'"));
}

TEST_CASE("kubectl kftrain takes kubectl's flags after the plugin name and keeps KUBECONFIG",
          "[packaging]") {
    // kubectl runs a plugin with its own flags after the plugin's name, and the environment
    // as it is. A kubectl on PATH records what it was given.
    const std::string dir = kftrain::test::make_temp_dir();
    const std::string record = dir + "/kubectl-call";
    kftrain::test::write_file(dir + "/kubectl",
                              "#!/bin/sh\n"
                              "{ echo \"KUBECONFIG=$KUBECONFIG\"; printf '%s\\n' \"$@\"; } >> '" +
                                  record + "'\necho 'error: no cluster here' >&2\nexit 1\n");
    REQUIRE(::chmod((dir + "/kubectl").c_str(), 0755) == 0);
    const std::string kubeconfig = dir + "/team-config";
    kftrain::test::write_file(kubeconfig, "apiVersion: v1\nkind: Config\n");
    const char* path = std::getenv("PATH");
    const std::map<std::string, std::string> env = {
        {"PATH", dir + ":" + (path != nullptr ? path : "/usr/bin:/bin")},
        {"HOME", dir},
        {"KUBECONFIG", kubeconfig},
        {"KFTRAIN_KUBECTL", ""}};

    const fs::path plugin = fs::path(kftrain::test::build_dir()) / "kubectl-kftrain";
    const CliRun run = run_program({plugin, "-n", "ml-team", "--context", "prod",
                                    "--request-timeout", "20s", "status", "mnist"},
                                   "", env);
    INFO(run.err);
    CHECK(run.code == 4);  // the recording kubectl fails: a kubectl error
    const std::string calls = kftrain::test::read_bytes(record);
    INFO(calls);
    // KUBECONFIG chose the cluster backend (no --kubeconfig given) and reached kubectl.
    CHECK(contains(calls, "KUBECONFIG=" + kubeconfig + "\n"));
    CHECK(contains(calls, "--context=prod\n"));
    CHECK(contains(calls, "--request-timeout=20s\n"));
    CHECK(contains(calls, "ml-team\n"));
    CHECK(contains(calls, "mnist\n"));

    const CliRun given = run_program(
        {plugin, "--kubeconfig", kubeconfig, "--namespace=ml-team", "status", "mnist"}, "", env);
    CHECK(contains(kftrain::test::read_bytes(record), "--kubeconfig=" + kubeconfig + "\n"));
    CHECK(given.code == 4);
}

TEST_CASE("in a pod with only its service account, kftrain talks to the cluster", "[packaging]") {
    // The kubelet sets KUBERNETES_SERVICE_HOST in every container; kubectl then uses the pod's
    // service account. No kubeconfig anywhere: kftrain must still choose the cluster backend.
    const std::string dir = kftrain::test::make_temp_dir();
    const std::string record = dir + "/kubectl-call";
    kftrain::test::write_file(dir + "/kubectl",
                              "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '" + record +
                                  "'\necho 'error: no cluster here' >&2\nexit 1\n");
    REQUIRE(::chmod((dir + "/kubectl").c_str(), 0755) == 0);
    const char* path = std::getenv("PATH");
    std::map<std::string, std::string> env = {
        {"PATH", dir + ":" + (path != nullptr ? path : "/usr/bin:/bin")},
        {"HOME", dir},
        {"KUBECONFIG", ""},
        {"KFTRAIN_KUBECTL", ""},
        {"XDG_STATE_HOME", dir + "/state"},
        {"KUBERNETES_SERVICE_HOST", "10.96.0.1"}};
    const CliRun in_pod = kftrain::test::run_kftrain({"list"}, env);
    INFO(in_pod.err);
    CHECK(in_pod.code == 4);  // the recording kubectl fails: it was reached
    CHECK_FALSE(contains(in_pod.err, "using the local backend"));
    CHECK(contains(kftrain::test::read_bytes(record), "get\n"));

    env["KUBERNETES_SERVICE_HOST"] = "";  // outside a pod: the local backend, said so
    const CliRun outside = kftrain::test::run_kftrain({"list"}, env);
    CHECK(outside.code == 0);
    CHECK(contains(outside.err, "not in a pod: using the local backend"));
}
