#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "backend/local/local_fixture.h"
#include "cli/app.h"
#include "cli/completion/candidates.h"
#include "cli/completion/scripts.h"
#include "cli/completion/values.h"
#include "cli/flags.h"
#include "cli/view/output_format.h"
#include "job/wait_condition.h"
#include "manifest/job_kind.h"
#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/paths.h"
#include "util/run.h"

namespace completion = kftrain::cli::completion;
using kftrain::test::contains;
using kftrain::test::FakeCluster;

namespace {

using Words = std::vector<std::string>;

// The command line run_cli parses, with its globals, to complete against.
struct Model {
    std::ostringstream out;
    std::ostringstream err;
    kftrain::cli::Context ctx{out, err, {}, 0};
    std::unique_ptr<CLI::App> app = kftrain::cli::make_app(ctx);
};

// Complete the last of words with fixed job and search names.
completion::Completion complete(const Words& words) {
    Model model;
    completion::NameSources names;
    names.jobs = [] {
        return std::vector<completion::Candidate>{{"mnist-ddp", "PyTorchJob Running"},
                                                  {"mnist-trainjob", "TrainJob Succeeded"},
                                                  {"resnet", "PyTorchJob Failed"}};
    };
    names.searches = [] { return std::vector<completion::Candidate>{{"mnist-tune", "search"}}; };
    names.queues = [] {
        return std::vector<completion::Candidate>{{"team-a", "LocalQueue"},
                                                  {"team-b", "LocalQueue"}};
    };
    names.gpus = [](const std::string& prices) {
        return std::vector<completion::Candidate>{{"a100", prices}, {"h100", prices}};
    };
    // Replicas and trials only of the job and search the fixed names have.
    names.replicas = [](const std::string& job) {
        if (job != "mnist-ddp") {
            return std::vector<completion::Candidate>{};
        }
        return std::vector<completion::Candidate>{{"master", "Master: 1 replica"},
                                                  {"worker", "Worker: 2 replicas"},
                                                  {"master-0", "Running"},
                                                  {"worker-0", "Running"},
                                                  {"worker-1", "Pending"}};
    };
    names.trial_replicas = [](const std::string& search, const std::string& trial) {
        if (search != "mnist-tune" || trial != "1") {
            return std::vector<completion::Candidate>{};
        }
        return std::vector<completion::Candidate>{{"master", "Master: 1 replica"},
                                                  {"master-0", "Succeeded"}};
    };
    names.trials = [](const std::string& search) {
        if (search != "mnist-tune") {
            return std::vector<completion::Candidate>{};
        }
        return std::vector<completion::Candidate>{{"1", "mnist-tune-a1 Succeeded"},
                                                  {"2", "mnist-tune-b2 Running"},
                                                  {"mnist-tune-a1", "trial 1 Succeeded"},
                                                  {"mnist-tune-b2", "trial 2 Running"}};
    };
    names.claims = [] {
        return std::vector<completion::Candidate>{
            {"mnist-data", "PersistentVolumeClaim"},
            {"training-checkpoints", "PersistentVolumeClaim"}};
    };
    return completion::complete(completion::read_line(*model.app, words), names);
}

// The values offered for the last of words.
Words values(const Words& words) {
    Words found;
    for (const auto& candidate : complete(words).candidates) {
        found.push_back(candidate.value);
    }
    return found;
}

bool has(const Words& words, const std::string& word) {
    return std::find(words.begin(), words.end(), word) != words.end();
}

// Fail, or in CI fail loudly, when a shell the scripts are for is missing: never skip.
std::string shell_path(const std::string& shell) {
    for (const char* dir : {"/usr/bin/", "/bin/", "/usr/local/bin/"}) {
        std::string path = std::string(dir) + shell;
        if (std::filesystem::exists(path)) {
            return path;
        }
    }
    FAIL(shell << " is not installed (scripts/setup.sh installs it): its completion script "
                  "cannot be tested");
    return "";
}

// Write `kftrain completion SHELL` to a file and return its path.
std::string script_file(const std::string& shell) {
    auto printed = kftrain::test::run_kftrain({"completion", shell});
    REQUIRE(printed.code == 0);
    REQUIRE(printed.err.empty());
    std::string path = kftrain::test::make_temp_dir() + "/kftrain." + shell;
    kftrain::test::write_file(path, printed.out);
    return path;
}

// The environment in which a shell finds the built kftrain as `kftrain`.
std::map<std::string, std::string> with_kftrain_on_path(std::map<std::string, std::string> env) {
    const char* path = std::getenv("PATH");
    env["PATH"] = std::filesystem::path(kftrain::test::kftrain_binary()).parent_path().string() +
                  ":" + (path != nullptr ? path : "/usr/bin:/bin");
    return env;
}

// Run a shell program with args; return its stdout lines, failing on a non-zero exit.
Words run_shell(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                const std::string& cwd_note = "") {
    kftrain::util::RunOptions options;
    options.argv = argv;
    options.env = with_kftrain_on_path(env);
    options.timeout = std::chrono::seconds(60);
    auto result = kftrain::util::run(options);
    REQUIRE(result.ok());
    INFO(cwd_note << "stderr: " << result->err);
    REQUIRE(result->status.as_shell_code() == 0);
    Words lines;
    std::istringstream text(result->out);
    for (std::string line; std::getline(text, line);) {
        lines.push_back(line);
    }
    return lines;
}

// Source the bash script and call its completion function as bash does on Tab after words
// ("kftrain" first, the word under the cursor last); return COMPREPLY.
Words bash_complete(const Words& words, const std::map<std::string, std::string>& env = {},
                    const std::string& dir = "") {
    static const std::string script = script_file("bash");
    std::vector<std::string> argv = {
        shell_path("bash"),
        "--norc",
        "--noprofile",
        "-c",
        "source \"$1\" || exit 9; shift; [ -n \"$DIR\" ] && cd \"$DIR\"; COMP_WORDS=(\"$@\"); "
        "COMP_CWORD=$(($# - 1)); COMP_LINE=\"$*\"; COMP_POINT=${#COMP_LINE}; "
        "__kftrain_complete; [ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\\n' \"${COMPREPLY[@]}\"",
        "bash",
        script};
    argv.insert(argv.end(), words.begin(), words.end());
    auto all = env;
    all["DIR"] = dir;
    return run_shell(argv, all);
}

}  // namespace

TEST_CASE("completion offers the verbs that start with the word, never the hidden ones",
          "[completion]") {
    CHECK(values({"st"}) == Words{"status"});
    Words verbs = values({""});
    for (const char* verb :
         {"render", "submit", "status", "wait", "logs", "list", "delete", "describe", "runtimes",
          "tune", "init", "version", "estimate", "completion"}) {
        CHECK(has(verbs, verb));
    }
    CHECK_FALSE(has(verbs, "__complete"));
    CHECK_FALSE(has(verbs, "__supervise"));
    CHECK(values({"tune", ""}) == Words{"status", "logs", "delete"});
    // Verbs come with their help line, for zsh and fish.
    auto status = complete({"stat"}).candidates;
    REQUIRE(status.size() == 1);
    CHECK(status[0].description == "Show a job's state, replicas and progress");
}

TEST_CASE("completion offers the verb's flags and the global ones, long and short",
          "[completion]") {
    Words flags = values({"status", "mnist-ddp", "-"});
    for (const char* flag : {"--output", "-o", "--watch", "-w", "--interval", "--help", "-h",
                             "--namespace", "-n", "--context", "--kubeconfig", "--local"}) {
        CHECK(has(flags, flag));
    }
    CHECK_FALSE(has(flags, "--dry-run"));  // submit's
    CHECK(values({"submit", "--dry"}) == Words{"--dry-run"});
    // A flag given once is not offered again; one that repeats is.
    Words after = values({"render", "-f", "job.yaml", "--set", "a=1", "--"});
    CHECK_FALSE(has(after, "--file"));
    CHECK(has(after, "--set"));
    // The global flags typed before the verb count too.
    CHECK_FALSE(has(values({"--local", "list", "--lo"}), "--local"));
}

TEST_CASE("completion offers the output formats each verb's -o accepts", "[completion]") {
    struct Case {
        Words words;
        Words formats;
    };
    const Case cases[] = {
        {{"status", "x", "-o", ""}, {"table", "wide", "json", "yaml"}},
        {{"list", "--output", ""}, {"table", "wide", "json", "yaml"}},
        {{"tune", "status", "x", "-o", ""}, {"table", "wide", "json", "yaml"}},
        {{"render", "-o", ""}, {"yaml", "json"}},
        {{"runtimes", "-o", ""}, {"table", "json", "yaml"}},
        {{"estimate", "-o", ""}, {"table", "json", "yaml"}},
        {{"describe", "x", "-o", ""}, {"json", "yaml"}},
        {{"status", "x", "-o", "j"}, {"json"}},
        {{"status", "x", "--output=w"}, {"wide"}},
    };
    for (const auto& c : cases) {
        INFO(c.words[0] << " " << c.words.back());
        CHECK(values(c.words) == c.formats);
        CHECK(complete(c.words).directive == completion::k_no_files);
    }
}

TEST_CASE("every -o/--output of the command line has its formats offered", "[completion]") {
    Model model;
    std::vector<const CLI::App*> commands = {model.app.get()};
    for (size_t i = 0; i < commands.size(); ++i) {
        for (const CLI::App* sub : commands[i]->get_subcommands({})) {
            commands.push_back(sub);
        }
        for (const CLI::Option* option : commands[i]->get_options()) {
            if (option->check_lname("output")) {
                INFO(completion::command_path(*commands[i])
                     << " -o: declare its formats in view::output_formats_of and parse -o "
                        "with them, so completion offers what validate() accepts");
                auto source = completion::value_source(*commands[i], *option);
                CHECK(source.kind == completion::ValueKind::Closed);
                CHECK_FALSE(source.values.empty());
            }
        }
    }
}

TEST_CASE("the closed sets offered are what the verbs accept", "[completion]") {
    CHECK(values({"submit", "-f", "x.yaml", "--dry-run", ""}) == Words{"client", "server"});
    CHECK(values({"tune", "--dry-run=s"}) == Words{"server"});
    CHECK(values({"render", "--kind", ""}) ==
          Words{"PyTorchJob", "TrainJob", "TFJob", "XGBoostJob", "JAXJob"});
    CHECK(values({"init", "--kind", "X"}) == Words{"XGBoostJob"});
    CHECK(values({"init", "--kind", "T"}) == Words{"TrainJob", "TFJob"});
    CHECK(values({"wait", "x", "--for", ""}) ==
          Words{"succeeded", "running", "created", "suspended", "admitted"});
    CHECK(values({"tune", "--algorithm", "g"}) == Words{"grid"});
    CHECK(values({"completion", ""}) == Words{"bash", "zsh", "fish"});
    // --gpu: the GPU types of the catalog --prices names, as typed.
    CHECK(values({"estimate", "--gpu", "h"}) == Words{"h100"});
    auto gpus = complete({"status", "x", "--prices", "mine.yaml", "--gpu", ""}).candidates;
    REQUIRE(gpus.size() == 2);
    CHECK(gpus[0].description == "mine.yaml");
    for (const auto& value : kftrain::cli::dry_run_values()) {
        CHECK(kftrain::cli::parse_dry_run(value).ok());
    }
    for (const auto& value : kftrain::job::wait_for_names()) {
        CHECK(kftrain::job::parse_wait_for(value).has_value());
    }
    for (auto kind : kftrain::manifest::k_kinds) {
        CHECK(kftrain::manifest::parse_kind(kftrain::manifest::kind_name(kind)) == kind);
    }
    // The shells offered are those there is a script for.
    for (const auto& shell : completion::shell_names()) {
        CHECK(completion::completion_script(shell).has_value());
    }
}

TEST_CASE("completion offers job names to the verbs that take a job, search names to tune's",
          "[completion]") {
    for (const char* verb : {"status", "wait", "logs", "delete", "describe"}) {
        INFO(verb);
        CHECK(values({verb, "mnist"}) == Words{"mnist-ddp", "mnist-trainjob"});
    }
    CHECK(values({"-n", "ml", "status", "-w", "r"}) == Words{"resnet"});
    CHECK(values({"status", "mnist-ddp", ""}).empty());  // the job is given
    CHECK(values({"tune", "status", ""}) == Words{"mnist-tune"});
    CHECK(values({"tune", "delete", "m"}) == Words{"mnist-tune"});
    CHECK(values({"list", ""}).empty());  // takes no job
    CHECK(values({"render", ""}).empty());
}

TEST_CASE("completion offers queue names to --queue of submit and list", "[completion]") {
    CHECK(values({"submit", "-f", "job.yaml", "--queue", "team-"}) == Words{"team-a", "team-b"});
    CHECK(values({"list", "--queue", "team-b"}) == Words{"team-b"});
}

TEST_CASE("the bash script completes the cluster's LocalQueues and this machine's queues",
          "[completion]") {
    FakeCluster cluster("kueue-queues");
    CHECK(bash_complete({"kftrain", "list", "--queue", "team"}, cluster.env()) ==
          Words{"team-a", "team-b"});

    kftrain::test::LocalJobs jobs;
    auto file = jobs.job_file("queued-here", 1, {"--steps", "1"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local", "--queue", "nightly"}).code == 0);
    jobs.wait_finished("queued-here");
    CHECK(bash_complete({"kftrain", "--local", "submit", "--queue", "ni"}) == Words{"nightly"});
}

TEST_CASE("completion offers the replicas of the job named on the line to logs --replica",
          "[completion]") {
    CHECK(values({"logs", "mnist-ddp", "--replica", ""}) ==
          Words{"master", "worker", "master-0", "worker-0", "worker-1"});
    CHECK(values({"logs", "mnist-ddp", "--replica", "w"}) ==
          Words{"worker", "worker-0", "worker-1"});
    CHECK(values({"logs", "--replica=worker-"}).empty());  // no job typed yet
    CHECK(values({"logs", "--tail", "5", "mnist-ddp", "--replica=worker-"}) ==
          Words{"worker-0", "worker-1"});
    CHECK(values({"logs", "resnet", "--replica", ""}).empty());  // a job the backend lacks
    // tune logs' --replica is one of the trial's job, not of a job named like the search.
    CHECK(values({"tune", "logs", "mnist-tune", "--trial", "1", "--replica", ""}) ==
          Words{"master", "master-0"});
    CHECK(values({"tune", "logs", "mnist-ddp", "--trial", "1", "--replica", ""}).empty());
    CHECK(values({"tune", "logs", "mnist-tune", "--replica", ""}).empty());  // no trial yet
}

TEST_CASE("completion offers a search's trials to --trial, numbers first, names once typed",
          "[completion]") {
    CHECK(values({"tune", "logs", "mnist-tune", "--trial", ""}) == Words{"1", "2"});
    CHECK(values({"tune", "logs", "mnist-tune", "--trial", "2"}) == Words{"2"});
    CHECK(values({"tune", "logs", "mnist-tune", "--trial", "mnist-tune-b"}) ==
          Words{"mnist-tune-b2"});
    CHECK(values({"tune", "logs", "other", "--trial", ""}).empty());
}

TEST_CASE("completion offers claims to --claim of every data verb", "[completion]") {
    for (const char* verb : {"put", "get", "ls"}) {
        INFO(verb);
        CHECK(values({"data", verb, "--claim", "t"}) == Words{"training-checkpoints"});
    }
}

TEST_CASE("the bash script completes searches, replicas, trials and claims from the cluster",
          "[completion]") {
    FakeCluster running("running");
    CHECK(bash_complete({"kftrain", "logs", "mnist-ddp", "--replica", ""}, running.env()) ==
          Words{"master", "worker", "master-0", "worker-0", "worker-1"});
    FakeCluster search("katib-succeeded");
    CHECK(bash_complete({"kftrain", "tune", "status", ""}, search.env()) == Words{"cifar-tune"});
    CHECK(bash_complete({"kftrain", "tune", "logs", "cifar-tune", "--trial", ""}, search.env()) ==
          Words{"1", "2", "3", "4"});
    auto status = search.run({"tune", "status", "cifar-tune"});
    REQUIRE(status.code == 0);
    const auto third = bash_complete(
        {"kftrain", "tune", "logs", "cifar-tune", "--trial", "cifar-tune-2"}, search.env());
    REQUIRE(third.size() == 1);
    CHECK(contains(status.out, third[0]));  // a trial `tune status` shows
    FakeCluster trial("katib-running");
    CHECK(bash_complete({"kftrain", "tune", "logs", "mnist-tune", "--trial", "1", "--replica", "w"},
                        trial.env()) == Words{"worker", "worker-0"});
    FakeCluster claims("data-claims");
    CHECK(bash_complete({"kftrain", "-n", "ml-training", "data", "ls", "--claim", ""},
                        claims.env()) == Words{"mnist-data", "training-checkpoints"});
}

TEST_CASE("the bash script completes the claims a local job file mounts", "[completion]") {
    const std::string file =
        std::string(kftrain::test::source_dir()) + "/examples/mnist-local.yaml";
    CHECK(bash_complete({"kftrain", "--local", "data", "put", "-f", file, "--claim", ""}) ==
          Words{"mnist-data", "training-checkpoints"});
}

TEST_CASE("completion asks for YAML files after -f, --template and --prices", "[completion]") {
    for (const Words& words : {Words{"render", "-f", ""}, Words{"submit", "--file", "exa"},
                               Words{"render", "--template", ""}, Words{"estimate", "--prices", ""},
                               Words{"render", "--file=ex"}}) {
        auto answer = complete(words);
        CHECK(answer.directive == completion::k_file_extensions);
        REQUIRE(answer.candidates.size() == 2);
        CHECK(answer.candidates[0].value == "yaml");
        CHECK(answer.candidates[1].value == "yml");
    }
    // A kubeconfig is any file; a free value (--name) completes nothing.
    CHECK(complete({"list", "--kubeconfig", ""}).directive == completion::k_files_allowed);
    CHECK(complete({"init", "--name", ""}).directive == completion::k_no_files);
    CHECK(complete({"init", "--name", ""}).candidates.empty());
}

TEST_CASE("completion gives the global flags typed on the line to the listing", "[completion]") {
    Model model;
    auto line = completion::read_line(
        *model.app, {"--context", "prod", "status", "-n", "ml", "--local", "--kubeconfig=/k", ""});
    completion::bind_global_flags(*model.app, line);
    CHECK(model.ctx.global.context == "prod");
    CHECK(model.ctx.global.namespace_ == "ml");
    CHECK(model.ctx.global.local);
    CHECK(model.ctx.global.kubeconfig == "/k");
    CHECK(kftrain::cli::completion::command_path(*line.command) == "status");
    // A value the flag's check refuses is left out, not an error.
    Model other;
    auto refused = completion::read_line(*other.app, {"-n", "", "status", ""});
    completion::bind_global_flags(*other.app, refused);
    CHECK(other.ctx.global.namespace_.empty());
}

TEST_CASE("kftrain __complete prints candidates and the directive, nothing on stderr",
          "[completion]") {
    auto run = kftrain::test::run_kftrain({"__complete", "kftrain", "sta"});
    CHECK(run.code == 0);
    CHECK(run.err.empty());
    CHECK(run.out == "status\tShow a job's state, replicas and progress\n:4\n");
    auto files = kftrain::test::run_kftrain({"__complete", "kftrain", "render", "-f", ""});
    CHECK(files.out == "yaml\nyml\n:8\n");
    // Hostile words: no crash, no candidates.
    auto odd = kftrain::test::run_kftrain({"__complete", "kftrain", "--output=", "-", "\t", ""});
    CHECK(odd.code == 0);
    CHECK(odd.err.empty());
    for (const Words& words : {Words{"__complete"}, Words{"__complete", "kftrain", "--help", ""},
                               Words{"__complete", "kftrain", "--version", "--", "-h", "-"}}) {
        auto ran = kftrain::test::run_kftrain(words);
        CHECK(ran.code == 0);
        CHECK(ran.err.empty());
        CHECK(contains(ran.out, ":"));
    }
    CHECK(kftrain::test::run_kftrain({"__complete", "kftrain", ""}).out.find("status\t") !=
          std::string::npos);
}

TEST_CASE("kftrain completion refuses a shell it has no script for", "[completion]") {
    auto run = kftrain::test::run_kftrain({"completion", "ksh"});
    CHECK(run.code == 2);
    CHECK(run.out.empty());
    CHECK(run.err == "kftrain: error: completion: the shell must be bash, zsh or fish (got ksh)\n");
}

TEST_CASE("the bash script completes verbs, flags and -o values in a real bash", "[completion]") {
    CHECK(bash_complete({"kftrain", "sta"}) == Words{"status"});
    CHECK(bash_complete({"kftrain", "tune", "st"}) == Words{"status"});
    CHECK(bash_complete({"kftrain", "status", "--wa"}) == Words{"--watch"});
    CHECK(bash_complete({"kftrain", "status", "x", "-o", ""}) ==
          Words{"table", "wide", "json", "yaml"});
    CHECK(bash_complete({"kftrain", "render", "-o", "j"}) == Words{"json"});
    // bash splits --output=json at '=': the script puts it back together.
    CHECK(bash_complete({"kftrain", "list", "--output", "=", "w"}) == Words{"wide"});
    CHECK(bash_complete({"kftrain", "list", "--output", "="}) ==
          Words{"table", "wide", "json", "yaml"});
    CHECK(bash_complete({"kftrain", "submit", "--dry-run", "s"}) == Words{"server"});
    // --gpu offers the built-in price catalog's GPU types.
    CHECK(has(bash_complete({"kftrain", "estimate", "--gpu", ""}), "a100"));
}

TEST_CASE("the bash script completes job names from the cluster kftrain list reads",
          "[completion]") {
    FakeCluster cluster("list");
    Words names = bash_complete({"kftrain", "status", ""}, cluster.env());
    CHECK_FALSE(names.empty());
    auto listed = cluster.run({"list"});
    REQUIRE(listed.code == 0);
    for (const auto& name : names) {
        CHECK(contains(listed.out, name));  // each offered job is one kftrain list shows
    }
    // -n typed on the line reaches kubectl.
    FakeCluster recorded("list");
    bash_complete({"kftrain", "-n", "ml-training", "logs", ""}, recorded.env());
    auto calls = recorded.calls();
    REQUIRE_FALSE(calls.empty());
    bool in_namespace = false;
    for (const auto& call : calls) {
        for (size_t i = 0; i + 1 < call.size(); ++i) {
            in_namespace = in_namespace || (call[i] == "-n" && call[i + 1] == "ml-training");
        }
    }
    CHECK(in_namespace);
}

TEST_CASE("the bash script completes a local job's name", "[completion]") {
    kftrain::test::LocalJobs jobs;
    auto file = jobs.job_file("completed-here", 1, {"--steps", "1"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_finished("completed-here");
    CHECK(bash_complete({"kftrain", "--local", "describe", "comp"}) == Words{"completed-here"});
}

TEST_CASE("a hanging kubectl or a broken cluster gives no names and no noise", "[completion]") {
    // kubectl-hangs: every get hangs; completion gives up at its deadline and prints nothing.
    for (const char* scenario : {"unreachable", "forbidden", "kubectl-hangs"}) {
        INFO(scenario);
        FakeCluster cluster(scenario);
        CHECK(bash_complete({"kftrain", "status", ""}, cluster.env()).empty());
        for (const Words& line : {Words{"logs", ""}, Words{"logs", "mnist-ddp", "--replica", ""},
                                  Words{"tune", "logs", "cifar-tune", "--trial", ""},
                                  Words{"tune", "logs", "s", "--trial", "1", "--replica", ""},
                                  Words{"data", "ls", "--claim", ""}}) {
            Words args = {"__complete", "kftrain"};
            args.insert(args.end(), line.begin(), line.end());
            auto asked = cluster.run(args);
            CHECK(asked.code == 0);
            CHECK(asked.out == ":4\n");
            CHECK(asked.err.empty());
        }
    }
}

TEST_CASE("the bash script completes -f with YAML files and directories", "[completion]") {
    std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/job.yaml", "name: a\n");
    kftrain::test::write_file(dir + "/other.yml", "name: b\n");
    kftrain::test::write_file(dir + "/notes.txt", "no\n");
    std::filesystem::create_directory(dir + "/jobs");
    Words offered = bash_complete({"kftrain", "submit", "-f", ""}, {}, dir);
    std::sort(offered.begin(), offered.end());
    CHECK(offered == Words{"job.yaml", "jobs", "other.yml"});
    CHECK(bash_complete({"kftrain", "render", "--template", "j"}, {}, dir).size() == 2);
}

namespace {

// The value of each "value<TAB>description" line.
Words values_of(const Words& lines) {
    Words found;
    for (const auto& line : lines) {
        found.push_back(line.substr(0, line.find('\t')));
    }
    return found;
}

// Source the fish script and ask fish what it completes for line, as on Tab.
Words fish_complete(const std::string& line, const std::string& dir = "") {
    static const std::string script = script_file("fish");
    return values_of(run_shell({shell_path("fish"), "--no-config", "-c",
                                "source $argv[1]; or exit 9; test -n \"$argv[3]\"; and cd "
                                "$argv[3]; complete -C $argv[2]",
                                script, line, dir},
                               {}));
}

// Source the zsh script and call its completion function with words as zsh's completion
// system would; _describe, _files and compset (zsh's completion system, which needs a
// terminal) print what they were given.
Words zsh_complete(const Words& words) {
    static const std::string script = script_file("zsh");
    std::vector<std::string> argv = {
        shell_path("zsh"),
        "-f",
        "-c",
        "source \"$1\" || exit 9; shift; "
        "_describe() { local -a c; c=(\"${(@P)4}\"); print -rl -- \"${c[@]%%:*}\"; }; "
        "_files() { print -r -- \"_files $*\"; }; compset() { :; }; "
        "words=(\"$@\"); CURRENT=$#; _kftrain",
        "zsh",
        script};
    argv.insert(argv.end(), words.begin(), words.end());
    return run_shell(argv, {});
}

}  // namespace

TEST_CASE("the fish script completes verbs, values, job files and job names in a real fish",
          "[completion]") {
    CHECK(fish_complete("kftrain sta") == Words{"status"});
    CHECK(fish_complete("kftrain status x -o j") == Words{"json"});
    CHECK(fish_complete("kftrain list --output=w") == Words{"--output=wide"});
    CHECK(fish_complete("kftrain render --kind Tr") == Words{"TrainJob"});
    std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/job.yaml", "name: a\n");
    kftrain::test::write_file(dir + "/notes.txt", "no\n");
    std::filesystem::create_directory(dir + "/jobs");
    Words files = fish_complete("kftrain submit -f ", dir);
    std::sort(files.begin(), files.end());
    CHECK(files == Words{"job.yaml", "jobs/"});
}

TEST_CASE("the zsh script parses and completes through kftrain", "[completion]") {
    std::string script = script_file("zsh");
    run_shell({shell_path("zsh"), "-n", script}, {});
    CHECK(zsh_complete({"kftrain", "sta"}) == Words{"status"});
    CHECK(zsh_complete({"kftrain", "status", "x", "-o", "y"}) == Words{"yaml"});
    CHECK(zsh_complete({"kftrain", "render", "-f", ""}) == Words{"_files -g *.(yaml|yml)"});
    CHECK(zsh_complete({"kftrain", "list", "--kubeconfig", ""}) == Words{"_files "});
}
