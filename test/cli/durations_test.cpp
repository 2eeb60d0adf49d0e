#include <CLI/CLI.hpp>
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/app.h"
#include "support/cli_runner.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/test_data.h"
#include "support/text.h"
#include "util/time_text.h"

using kftrain::test::contains;
using kftrain::test::run_kftrain;

namespace {

const std::string k_estimate_dir = std::string(kftrain::test::test_data_dir()) + "/estimate/";
const std::string k_not_a_duration = "not a duration such as 90s, 1h30m or 500ms (got ";

// One flag that takes a duration, and a command line that reaches its check.
struct DurationFlag {
    std::vector<std::string> argv;  // the verb and what it needs besides the flag
    std::string flag;
    std::string docs_verbs;  // how docs/cli.md's table names the verbs
    std::string range;       // "" (0 or more), "longer than 0" or "from 1s to 24h"
    int code = 4;            // a good value's exit: 4 (no kubectl), -1 when it varies
};

// A directory for the test's files, removed when the tests end.
const std::string& scratch_dir() {
    struct Scratch {
        std::string path = kftrain::test::make_temp_dir();
        ~Scratch() {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    };
    static const Scratch dir;
    return dir.path;
}

// A job file whose program does not exist: estimate --measure stops on it (exit 2) after
// checking --measure-seconds, rather than measuring anything.
std::string missing_program_job() {
    const std::string path = scratch_dir() + "/job.yaml";
    kftrain::test::write_file(path,
                              "name: nothing\nreplicas: 1\ncommand: [/nonexistent/program]\n");
    return path;
}

// Return argv as one line, for messages.
std::string joined(const std::vector<std::string>& argv) {
    std::string line;
    for (const std::string& arg : argv) {
        line += (line.empty() ? "" : " ") + arg;
    }
    return line;
}

// Every flag of every verb that takes a duration.
std::vector<DurationFlag> duration_flags() {
    const std::vector<std::string> estimate = {"estimate", "-f", k_estimate_dir + "cpu-job.yaml",
                                               "--profile", k_estimate_dir + "profile.json"};
    const std::string positive = "longer than 0";
    const std::string day = "from 1s to 24h";
    return {
        {{"status", "mnist"}, "--request-timeout", "every verb", ""},
        {{"wait", "mnist"}, "--timeout", "wait", ""},
        {{"wait", "mnist"}, "--interval", "wait", positive},
        {{"suspend", "mnist"}, "--timeout", "suspend", ""},
        {{"suspend", "mnist"}, "--interval", "suspend", positive},
        {{"resume", "mnist"}, "--timeout", "resume", ""},
        {{"resume", "mnist"}, "--interval", "resume", positive},
        {{"status", "mnist"}, "--interval", "status", positive},
        {{"logs", "mnist"}, "--since", "logs", ""},
        {{"logs", "mnist"}, "--poll-interval", "logs", positive},
        {{"tune", "logs", "search", "--trial", "1"}, "--since", "tune logs", ""},
        {{"tune", "logs", "search", "--trial", "1"}, "--poll-interval", "tune logs", positive},
        {{"diagnose", "mnist"}, "--stuck-after", "diagnose", day},
        {{"data", "ls", "--claim", "data"}, "--timeout", "data", positive},
        {{"data", "put", kftrain::test::test_data_dir(), "--claim", "data"},
         "--timeout",
         "data",
         positive},
        {{"data", "get", scratch_dir() + "/out", "--claim", "data"}, "--timeout", "data", positive},
        // No size meets a short deadline: exit 2 after the flag was taken.
        {estimate, "--deadline", "estimate", positive, -1},
        {estimate, "--overhead", "estimate", "", 0},
        {{"estimate", "-f", missing_program_job(), "--measure"},
         "--measure-seconds",
         "estimate",
         day,
         2},
        // Taken, priced and consented to: then no kubectl to submit with (exit 4).
        {{"estimate", "-f", missing_program_job(), "--measure", "--on-cluster", "--yes"},
         "--start-timeout",
         "estimate",
         day},
        // No record and no kubectl: nothing to list, nothing live to count (a warning).
        {{"history"}, "--since", "history", "", 0},
        {{"cost"}, "--since", "cost", "", 0},
        {{"prune"}, "--older-than", "prune", ""},
    };
}

// Whether a flag's name carries a unit of time: its bare number is in that unit.
bool named_in_seconds(const std::string& flag) {
    const std::string suffix = "-seconds";
    return flag.size() > suffix.size() &&
           flag.compare(flag.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Whether a flag takes a bare whole number as seconds: kubectl's --request-timeout, and every
// flag named in seconds.
bool takes_whole_seconds(const DurationFlag& f) {
    return f.flag == "--request-timeout" || named_in_seconds(f.flag);
}

// Return the unit a flag's name carries ("--measure-seconds": "seconds"), "" for none.
std::string unit_of(const std::string& flag) {
    for (const char* unit : {"seconds", "secs", "sec", "minutes", "mins", "hours", "ms", "us", "ns",
                             "mib", "mb", "gib", "gb", "kib", "kb", "bytes"}) {
        const std::string suffix = std::string("-") + unit;
        if (flag.size() > suffix.size() &&
            flag.compare(flag.size() - suffix.size(), suffix.size(), suffix) == 0) {
            return unit;
        }
    }
    return "";
}

// Run kftrain with the flag set to value, with no kubectl to reach.
kftrain::test::CliRun run_with(const DurationFlag& f, const std::string& value) {
    std::vector<std::string> args = f.argv;
    args.insert(args.end(), {f.flag, value});
    return run_kftrain(args, {{"KFTRAIN_KUBECTL", "/nonexistent/kubectl"}});
}

// The verb a command line names ("tune logs", "data ls"), under the app.
CLI::App* verb_of(CLI::App& app, const std::vector<std::string>& argv) {
    CLI::App* verb = &app;
    for (const std::string& word : argv) {
        auto subs = verb->get_subcommands([&](CLI::App* sub) { return sub->get_name() == word; });
        if (subs.empty()) {
            break;
        }
        verb = subs.front();
    }
    return verb;
}

// The verbs from the app down to verb, as typed ("tune logs"); "" for the app itself.
std::string path_of(const CLI::App* verb) {
    std::string path;
    for (; verb->get_parent() != nullptr; verb = verb->get_parent()) {
        path = path.empty() ? verb->get_name() : verb->get_name() + " " + path;
    }
    return path;
}

// Add "verb --flag" of each option under app whose help names the duration forms.
void collect_duration_options(const CLI::App& app, std::set<std::string>& found) {
    for (const CLI::Option* option : app.get_options()) {
        if (contains(option->get_description(), kftrain::util::k_duration_forms)) {
            found.insert(path_of(&app) + " " + option->get_name());
        }
    }
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        collect_duration_options(*sub, found);
    }
}

// Add "verb --flag" of each option under app whose name carries a unit.
void collect_unit_options(const CLI::App& app, std::set<std::string>& found) {
    for (const CLI::Option* option : app.get_options()) {
        for (const std::string& name : option->get_lnames()) {
            if (!unit_of("--" + name).empty()) {
                found.insert(path_of(&app) + " --" + name);
            }
        }
    }
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        collect_unit_options(*sub, found);
    }
}

}  // namespace

TEST_CASE("every duration flag takes kubectl's durations", "[cli][duration]") {
    for (const DurationFlag& f : duration_flags()) {
        // The grammar's every form is util's unit test (test/util); here each flag is shown to
        // take it through the one parser, and its range.
        std::vector<std::string> good = {"1h30m", "500ms", "0"};
        if (takes_whole_seconds(f)) {
            good.push_back("90");  // whole seconds, as kubectl takes them
        }
        for (const std::string& value : good) {
            const bool below = (value == "0" && !f.range.empty()) ||
                               (value == "500ms" && f.range == "from 1s to 24h");
            INFO(joined(f.argv) << " " << f.flag << " " << value);
            auto run = run_with(f, value);
            INFO(run.err);
            if (below) {
                CHECK(run.code == 2);
                CHECK(contains(run.err, "kftrain: error: " + f.flag + ": must be a duration " +
                                            f.range + " (got " + value + ")\n"));
                continue;
            }
            CHECK_FALSE(contains(run.err, f.flag + ": not a duration"));
            CHECK_FALSE(contains(run.err, f.flag + ": must"));
            if (f.code >= 0) {
                CHECK(run.code == f.code);
            }
        }
    }
}

TEST_CASE("every duration flag refuses what is no duration, naming flag and value",
          "[cli][duration]") {
    struct Bad {
        std::string value;
        std::string why;  // after "--flag: "
    };
    // One of each way to be refused; the grammar's every refusal is util's unit test.
    const std::vector<Bad> bad = {
        {"90", k_not_a_duration + "90; add a unit, as in 90s)"},
        {"0x10s", k_not_a_duration + "0x10s)"},
        {"-5s", "must not be negative (got -5s)"},
        {"1000000h", "must be a duration of at most 876000h, 100 years (got 1000000h)"},
    };
    for (const DurationFlag& f : duration_flags()) {
        for (const Bad& b : bad) {
            if (takes_whole_seconds(f) && b.value == "90") {
                continue;  // whole seconds
            }
            INFO(joined(f.argv) << " " << f.flag << " '" << b.value << "'");
            auto run = run_with(f, b.value);
            CHECK(run.code == 2);
            CHECK(run.err.rfind("kftrain: error: " + f.flag + ": " + b.why + "\n", 0) == 0);
        }
    }
}

TEST_CASE("every duration flag's help gives the same forms, and only they do", "[cli][duration]") {
    std::ostringstream out;
    std::ostringstream err;
    kftrain::job::Context ctx{out, err, {}, 0};
    auto app = kftrain::cli::make_app(ctx);
    std::set<std::string> listed;
    for (const DurationFlag& f : duration_flags()) {
        CLI::App* owner = verb_of(*app, f.argv);
        while (owner->get_option_no_throw(f.flag) == nullptr && owner->get_parent() != nullptr) {
            owner = owner->get_parent();  // a global flag
        }
        const CLI::Option* option = owner->get_option_no_throw(f.flag);
        INFO(f.argv.front() << " " << f.flag);
        REQUIRE(option != nullptr);
        CHECK(contains(option->get_description(), kftrain::util::k_duration_forms));
        listed.insert(path_of(owner) + " " + f.flag);
    }
    std::set<std::string> found;
    collect_duration_options(*app, found);
    CHECK(found == listed);
}

TEST_CASE("a flag whose name carries a unit takes a bare number in that unit", "[cli][duration]") {
    std::ostringstream out;
    std::ostringstream err;
    kftrain::job::Context ctx{out, err, {}, 0};
    auto app = kftrain::cli::make_app(ctx);
    // Every such flag is a duration flag named in seconds (another unit would need its own
    // reading here), and takes whole seconds.
    std::set<std::string> named;
    for (const DurationFlag& f : duration_flags()) {
        if (named_in_seconds(f.flag)) {
            named.insert(path_of(verb_of(*app, f.argv)) + " " + f.flag);
        }
    }
    std::set<std::string> found;
    collect_unit_options(*app, found);
    CHECK(found == named);
    CHECK_FALSE(found.empty());
    // 30 is 30 seconds, as 30s is: the price of the measurement says so, before it is refused
    // for want of --yes.
    for (const std::string value : {"30", "30s"}) {
        INFO(value);
        auto run =
            run_kftrain({"estimate", "-f", missing_program_job(), "--measure", "--on-cluster",
                         "--measure-replicas", "1", "--measure-seconds", value},
                        {{"KFTRAIN_KUBECTL", "/nonexistent/kubectl"}});
        INFO(run.err);
        CHECK(run.code == 2);
        CHECK(contains(run.out + run.err, "(1 replica, 30s each)"));
        CHECK(contains(run.err, "kftrain: error: --on-cluster: the measurement runs pods"));
    }
}

TEST_CASE("docs/cli.md's duration table has a row for every duration flag", "[cli][duration]") {
    const std::string page = kftrain::test::read_test_data("../../docs/cli.md");
    std::vector<std::string> rows;
    std::istringstream lines(page);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("| `--", 0) == 0) {
            rows.push_back(line);
        }
    }
    for (const DurationFlag& f : duration_flags()) {
        INFO(f.flag << " of " << f.docs_verbs);
        const bool documented = std::any_of(rows.begin(), rows.end(), [&](const std::string& row) {
            return row.rfind("| `" + f.flag + "` |", 0) == 0 &&
                   contains(row, f.docs_verbs == "every verb" ? "every verb"
                                                              : "`" + f.docs_verbs + "`") &&
                   contains(row, f.range.empty() ? "0 or more" : f.range);
        });
        CHECK(documented);
    }
}
