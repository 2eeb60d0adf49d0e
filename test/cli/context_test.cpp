#include "cli/context.h"

#include <catch2/catch.hpp>

#include "support/cli_runner.h"
#include "support/paths.h"

using namespace kftrain;
using kftrain::test::run_kftrain;

TEST_CASE("global flags kubectl or the cluster would reject are refused first", "[cli]") {
    struct Case {
        std::string name;
        cli::GlobalOptions global;
        std::string message;  // "" when accepted
    };
    auto with = [](auto change) {
        cli::GlobalOptions global;
        change(global);
        return global;
    };
    const std::vector<Case> cases = {
        {"nothing set", {}, ""},
        {"a timeout in seconds", with([](auto& g) { g.request_timeout = "30s"; }), ""},
        {"whole seconds", with([](auto& g) { g.request_timeout = "45"; }), ""},
        {"no timeout", with([](auto& g) { g.request_timeout = "0"; }), ""},
        {"a compound duration", with([](auto& g) { g.request_timeout = "1m30s"; }), ""},
        {"a word", with([](auto& g) { g.request_timeout = "banana"; }),
         "--request-timeout: not a duration such as 90s, 1h30m or 500ms (got banana)"},
        {"days, which kubectl does not take", with([](auto& g) { g.request_timeout = "1d"; }),
         "--request-timeout: not a duration such as 90s, 1h30m or 500ms (got 1d; kubectl takes "
         "no d: write a day as 24h)"},
        {"whole seconds past 100 years",
         with([](auto& g) { g.request_timeout = std::string(400, '9'); }),
         "--request-timeout: must be a duration of at most 876000h, 100 years (got " +
             std::string(400, '9') + ")"},
        {"a namespace", with([](auto& g) { g.namespace_ = "ml-training"; }), ""},
        {"a namespace with a slash", with([](auto& g) { g.namespace_ = "../etc"; }),
         "-n/--namespace: must be a DNS-1123 label: lower-case letters, digits and '-', at most "
         "63 characters (got ../etc)"},
        {"--local with --context", with([](auto& g) {
             g.local = true;
             g.context = "prod";
         }),
         "--local runs on this machine, but --context names a cluster: give one or the other"},
        {"--local with --kubeconfig", with([](auto& g) {
             g.local = true;
             g.kubeconfig = "/etc/kube/config";
         }),
         "--local runs on this machine, but --kubeconfig names a cluster: give one or the other"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        auto checked = cli::check_global_options(c.global);
        if (c.message.empty()) {
            CHECK(checked);
        } else {
            REQUIRE_FALSE(checked);
            CHECK(checked.error() == c.message);
        }
    }
}

TEST_CASE("a bad global flag exits 2 before kubectl runs", "[cli]") {
    const std::map<std::string, std::string> no_kubectl = {
        {"KFTRAIN_KUBECTL", "/nonexistent/kubectl"}};
    struct Case {
        std::vector<std::string> args;
        std::string err;
    };
    const std::vector<Case> cases = {
        {{"status", "mnist", "--request-timeout", "banana"},
         "kftrain: error: --request-timeout: not a duration such as 90s, 1h30m or 500ms (got "
         "banana)\n"},
        {{"delete", "mnist", "--local", "--context", "prod"},
         "kftrain: error: --local runs on this machine, but --context names a cluster: give one "
         "or the other\n"},
        {{"list", "-n", ""},
         "kftrain: error: --namespace: must not be empty\nRun 'kftrain list --help' for "
         "usage.\n"},
        // An unset variable in a script (-o "$FORMAT") is not the table.
        {{"status", "mnist", "-o", ""},
         "kftrain: error: --output: must not be empty\nRun 'kftrain status --help' for "
         "usage.\n"},
        {{"diagnose", "mnist", "--output", ""},
         "kftrain: error: --output: must not be empty\nRun 'kftrain diagnose --help' for "
         "usage.\n"},
        {{"submit", "-f", std::string(kftrain::test::source_dir()) + "/examples/mnist-ddp.yaml",
          "--dry-run", "--wait"},
         "kftrain: error: --wait: a dry run creates no job to wait for (drop --dry-run or "
         "--wait)\n"},
    };
    for (const auto& c : cases) {
        INFO(c.args.front());
        auto run = run_kftrain(c.args, no_kubectl);
        CHECK(run.code == 2);
        CHECK(run.out.empty());
        CHECK(run.err == c.err);
    }
}
