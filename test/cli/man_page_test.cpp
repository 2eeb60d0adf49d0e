#include "cli/help/man_page.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "cli/app.h"
#include "support/text.h"

using kftrain::cli::help::man_page;
using kftrain::cli::help::ManPageInfo;
using kftrain::cli::help::roff_escape;
using kftrain::test::contains;

namespace {

// Every visible verb under app, as "kftrain tune status".
void visible_verbs(const CLI::App& app, const std::string& path,
                   std::vector<std::pair<std::string, const CLI::App*>>& found) {
    for (const CLI::App* sub : app.get_subcommands(
             [](const CLI::App* s) { return !s->get_name().empty() && !s->get_group().empty(); })) {
        found.emplace_back(path + " " + sub->get_name(), sub);
        visible_verbs(*sub, path + " " + sub->get_name(), found);
    }
}

struct Page {
    std::ostringstream sink;
    kftrain::cli::Context ctx{sink, sink, {}, 0};
    std::unique_ptr<CLI::App> app = kftrain::cli::make_app(ctx);
    std::string text = man_page(*app, ManPageInfo{"9.8.7", "kubectl kftrain", "kubectl(1)"});
};

}  // namespace

TEST_CASE("roff_escape makes minus signs and keeps lines from reading as requests", "[man]") {
    CHECK(roff_escape("--namespace") == "\\-\\-namespace");
    CHECK(roff_escape(".hidden file") == "\\&.hidden file");
    CHECK(roff_escape("'quoted' text") == "\\&'quoted' text");
    CHECK(roff_escape("one\n.two\n'three") == "one\n\\&.two\n\\&'three");
    CHECK(roff_escape("a.b 'c'") == "a.b 'c'");
    CHECK(roff_escape("C:\\path") == "C:\\epath");
}

TEST_CASE("the man page documents every verb, subverb and flag of kftrain", "[man]") {
    Page page;
    std::vector<std::pair<std::string, const CLI::App*>> verbs;
    visible_verbs(*page.app, "kftrain", verbs);
    REQUIRE(verbs.size() >= 14);
    for (const auto& [path, verb] : verbs) {
        INFO(path);
        // Each verb's section opens with its usage line, as --help prints it.
        CHECK(contains(page.text, ".SS\n" + roff_escape(path)));
        CHECK(contains(page.text, roff_escape(verb->get_description())));
        for (const CLI::Option* option : verb->get_options()) {
            if (option == verb->get_help_ptr() || option->get_group().empty()) {
                continue;
            }
            INFO(option->get_name());
            for (const std::string& name : option->get_lnames()) {
                CHECK(contains(page.text, "\\fB" + roff_escape("--" + name) + "\\fR"));
            }
            for (const std::string& name : option->get_snames()) {
                CHECK(contains(page.text, "\\fB" + roff_escape("-" + name) + "\\fR"));
            }
        }
    }
    for (const char* global : {"\\-\\-namespace", "\\-\\-context", "\\-\\-kubeconfig",
                               "\\-\\-request\\-timeout", "\\-\\-local"}) {
        CHECK(contains(page.text, std::string("\\fB") + global + "\\fR"));
    }
    // The hidden supervisor verb is internal: not documented.
    CHECK_FALSE(contains(page.text, "supervise"));
}

TEST_CASE("the man page has the sections of a man page and kftrain's exit codes", "[man]") {
    Page page;
    CHECK(page.text.rfind(".\\\" Generated from", 0) == 0);
    CHECK(contains(page.text, ".TH KFTRAIN 1 \"\" \"kftrain 9.8.7\" \"User Commands\"\n"));
    CHECK(contains(page.text,
                   ".SH NAME\nkftrain \\- train PyTorch models across many machines with "
                   "Kubeflow\n"));
    CHECK(contains(page.text, ".SH SYNOPSIS\n.B kftrain\n"));
    CHECK(contains(page.text, ".B kubectl kftrain\n"));
    for (const char* section :
         {".SH DESCRIPTION\n", ".SH OPTIONS\n", ".SH COMMANDS\n", ".SH EXAMPLES\n",
          ".SH EXIT STATUS\n", ".SH SEE ALSO\nkubectl(1)\n"}) {
        CHECK(contains(page.text, section));
    }
    CHECK(contains(page.text, ".TP\n.B 0\nok\n"));
    CHECK(contains(page.text, ".TP\n.B 2\nbad input\n"));
    CHECK(contains(page.text, ".TP\n.B 130\ninterrupted\n"));
    // Examples are command lines to paste, in bold with real minus signs.
    CHECK(contains(page.text, "\\fBkftrain render \\-f examples/mnist\\-ddp.yaml\\fR\n"));
    // No line of generated text starts a request by accident.
    std::istringstream lines(page.text);
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && (line[0] == '.' || line[0] == '\'')) {
            INFO(line);
            CHECK((line.rfind(".\\\"", 0) == 0 || line.rfind(".TH ", 0) == 0 ||
                   line.rfind(".SH", 0) == 0 || line.rfind(".SS", 0) == 0 || line == ".PP" ||
                   line == ".TP" || line.rfind(".B ", 0) == 0 || line == ".br" || line == ".RS 4" ||
                   line == ".RE" || line == ".nf" || line == ".fi"));
        }
    }
}
