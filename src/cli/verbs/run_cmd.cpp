#include "cli/verbs/run_cmd.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <memory>
#include <random>

#include "cli/job_flags.h"
#include "cli/verb.h"
#include "job/exit_codes.h"
#include "load/collect.h"
#include "load/job_input.h"
#include "manifest/convert.h"
#include "manifest/retries.h"
#include "manifest/write.h"
#include "util/text.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_run_examples =
    "Examples:\n"
    "  # Two replicas of your script on this machine, this folder shipped with it\n"
    "  kftrain run --replicas 2 --local --follow -- python3 train.py --lr 0.1\n"
    "  # The same on the cluster: the folder goes in a ConfigMap, no image to build\n"
    "  kftrain run --replicas 4 --gpus 1 --follow -- python3 train.py --lr 0.1\n"
    "  # A Kubeflow Trainer v2 TrainJob on its torch-distributed runtime\n"
    "  kftrain run --kind TrainJob --runtime torch-distributed -- python3 train.py\n"
    "  # Keep the job file it makes, to edit and submit later\n"
    "  kftrain run --replicas 2 --print-job-file -- python3 train.py > job.yaml";

// Return a suffix of 5 lower-case letters and digits, for a name of its own.
std::string random_suffix() {
    static const char k_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device device;
    std::uniform_int_distribution<size_t> pick(0, sizeof(k_chars) - 2);
    std::string suffix;
    for (int i = 0; i < 5; ++i) {
        suffix += k_chars[pick(device)];
    }
    return suffix;
}

// Return the word of the command that names the program: its first argument ending in .py,
// .sh or similar, else the program itself.
std::string script_of(const std::vector<std::string>& command) {
    for (size_t i = 1; i < command.size(); ++i) {
        const std::string& arg = command[i];
        if (!arg.empty() && arg.front() != '-' && arg.find('.') != std::string::npos) {
            return arg;
        }
    }
    return command.empty() ? "job" : command.front();
}

}  // namespace

std::string run_job_name(const std::vector<std::string>& command, const std::string& suffix) {
    std::string script = script_of(command);
    script = script.substr(script.rfind('/') == std::string::npos ? 0 : script.rfind('/') + 1);
    script = script.substr(0, script.find('.'));
    std::string name;
    for (char c : script) {
        const auto byte = static_cast<unsigned char>(c);
        const char lower = static_cast<char>(std::tolower(byte));
        name += (std::isalnum(byte) != 0 && byte < 0x80) ? lower : '-';
    }
    while (!name.empty() && name.front() == '-') {
        name.erase(0, 1);
    }
    name = name.substr(0, 40);
    while (!name.empty() && name.back() == '-') {
        name.pop_back();
    }
    if (name.empty() || std::isalpha(static_cast<unsigned char>(name.front())) == 0) {
        name = "job" + (name.empty() ? "" : "-" + name);
    }
    return name + "-" + suffix;
}

util::Result<manifest::JobSpec> run_job_spec(const RunOptions& options, const std::string& suffix) {
    if (options.command.empty()) {
        return util::error(
            "COMMAND: give the program to run after -- (kftrain run -- python3 "
            "train.py)",
            k_exit_bad_input);
    }
    manifest::JobSpec spec;
    spec.name = options.name.empty() ? run_job_name(options.command, suffix) : options.name;
    if (!options.kind.empty()) {
        auto kind = load::parse_kind_flag(options.kind);
        if (!kind) {
            return kind.error_value();
        }
        spec.kind = *kind;
    }
    if (!options.runtime.empty()) {
        manifest::set_runtime(spec, options.runtime);
    }
    if (!options.image.empty()) {
        spec.image = options.image;
        spec.source.from_flags["image"] = "--image";  // named: written even as the default
    }
    spec.command = options.command;
    spec.replicas = options.replicas;
    spec.resources.cpu = options.cpu;
    spec.resources.memory = options.memory;
    spec.resources.gpus = options.gpus;
    for (const auto& pair : options.env) {
        const size_t eq = pair.find('=');
        if (eq == std::string::npos || eq == 0) {
            return util::error(fmt::format("--env: expected NAME=VALUE (got {})", pair),
                               k_exit_bad_input);
        }
        spec.env[pair.substr(0, eq)].value = pair.substr(eq + 1);
    }
    if (!options.no_code) {  // absolute: the printed job file works from where it is saved
        spec.code.path = load::absolute_folder(options.code);
    }
    // What --print-job-file prints is what is submitted: the namespace and queue go with it.
    if (!options.namespace_.empty()) {
        spec.namespace_ = options.namespace_;
    }
    spec.queue = options.submit.job.queue.value_or("");
    spec.queue_priority_class = options.submit.job.priority_class.value_or("");
    // A bounded budget, so that a program that can never start ends Failed on its own.
    spec.run_policy.backoff_limit = manifest::backoff_limit_for_retries(
        options.submit.job.retries.value_or(manifest::k_default_retries));
    return spec;
}

util::Result<std::string> run_job_file(const RunOptions& options, const std::string& suffix) {
    auto spec = run_job_spec(options, suffix);
    if (!spec) {
        return spec.error_value();
    }
    return manifest::write_job_file(*spec);
}

namespace {

// Return the option a command-line word names (`--replicas`, `--cpu=2`, `-n`), among the
// app's global flags and, once the verb is known, its own; nullptr for none.
const CLI::Option* option_of(const CLI::App& app, const CLI::App* verb, const std::string& word) {
    if (word.size() < 2 || word[0] != '-' || word == "--") {
        return nullptr;
    }
    const std::string name = word.substr(0, word.find('='));
    const CLI::Option* found = verb != nullptr ? verb->get_option_no_throw(name) : nullptr;
    return found != nullptr ? found : app.get_option_no_throw(name);
}

// Return whether an option takes the next word as its value (`--replicas 3`, not `--follow`
// nor `--dry-run`, whose value is optional, nor `--cpu=2`).
bool takes_next_word(const CLI::Option* option, const std::string& word) {
    return option != nullptr && word.find('=') == std::string::npos &&
           option->get_expected_min() > 0;
}

// Write --dry-run as CLI11 reads it before `--`: with its value after '=' (a bare one, or one
// followed by its value, swallows the separator and the program's flags are then refused). A
// word after it that is no flag is its value, as CLI11 takes it (checked, exit 2 if neither
// client nor server).
void join_dry_run(std::vector<std::string>& args, size_t& i) {
    if (args[i] != "--dry-run") {
        return;
    }
    if (i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-') {
        args[i] += "=" + args[i + 1];
        args.erase(args.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    } else {
        args[i] += "=client";  // what a bare --dry-run means
    }
}

}  // namespace

util::Result<std::vector<std::string>> separate_run_command(const CLI::App& app,
                                                            std::vector<std::string> args) {
    const CLI::App* verb = nullptr;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& word = args[i];
        if (word == "--") {
            return args;  // the user said where the command starts
        }
        if (const CLI::Option* option = option_of(app, verb, word)) {
            if (verb != nullptr) {
                join_dry_run(args, i);
            }
            i += takes_next_word(option, word) ? 1 : 0;
            continue;
        }
        if (verb == nullptr) {  // the verb
            if (word != "run") {
                return args;
            }
            verb = app.get_subcommand("run");
            continue;
        }
        if (!word.empty() && word[0] == '-') {
            return args;  // a flag run does not know: CLI11 says so
        }
        for (size_t j = i + 1; j < args.size(); ++j) {
            if (option_of(app, verb, args[j]) != nullptr) {
                return util::error(fmt::format(
                    "{} after the command ({}): kftrain's flags go before the command; to give "
                    "it to the program, put the command after --: kftrain run [FLAGS] -- {} ...",
                    args[j].substr(0, args[j].find('=')), util::escape_line(word), word));
            }
        }
        args.insert(args.begin() + static_cast<std::ptrdiff_t>(i), "--");
        return args;
    }
    return args;
}

void setup_run(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<RunOptions>();
    auto* sub = app.add_subcommand(
        "run", "Run a command as a training job, no job file: this folder goes with it");
    sub->footer(k_run_examples);
    sub->add_option("command", options->command, "The program and its arguments, after --")
        ->type_name("COMMAND...");
    sub->add_option("--replicas", options->replicas, "Replicas (pods, or local processes)")
        ->default_str("2");
    sub->add_option("--kind", options->kind,
                    "PyTorchJob (default), TFJob, XGBoostJob, JAXJob or TrainJob");
    sub->add_option("--runtime", options->runtime, "TrainJob: the runtime (torch-distributed)");
    sub->add_option("--image", options->image, "The image (default: the kind's, docs/code.md)");
    sub->add_option("--code", options->code, "The folder shipped with the job")
        ->type_name("DIR")
        ->default_str(".");
    sub->add_flag("--no-code", options->no_code, "Ship no folder: the image holds the program");
    sub->add_option("--name", options->name,
                    "The job's name (default: the script's, and a suffix of its own)");
    sub->add_option("--env", options->env, "A variable every replica gets (repeatable)")
        ->type_name("NAME=VALUE");
    sub->add_option("--gpus", options->gpus, "nvidia.com/gpu per replica");
    sub->add_option("--cpu", options->cpu, "CPU per replica (a quantity: 2, 500m)");
    sub->add_option("--memory", options->memory, "Memory per replica (a quantity: 4Gi)");
    sub->add_flag("--print-job-file", options->print_job_file,
                  "Print the job file these flags make, checked, instead of submitting it");
    add_queue_flags(*sub, options->submit.job);
    add_retries_flag(*sub, options->submit.job, true);
    const CLI::Option* dry_run = add_submit_flags(*sub, options->submit);
    sub->callback([options, dry_run, &ctx] {
        read_bare_dry_run(*dry_run, options->submit);
        ctx.exit_code = run_verb(*options, ctx);
    });
}

util::Status RunOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    auto text = run_job_file(*this, random_suffix());
    if (!text) {
        return text.error_value();
    }
    job_file = *text;
    submit.job.job_yaml = job_file;
    // Messages name the flag that wrote a key, not a line of a file the user never saw.
    submit.job.key_flags = {{"name", "--name"},           {"kind", "--kind"},
                            {"runtime", "--runtime"},     {"image", "--image"},
                            {"command", "COMMAND"},       {"replicas", "--replicas"},
                            {"resources.cpu", "--cpu"},   {"resources.memory", "--memory"},
                            {"resources.gpus", "--gpus"}, {"env", "--env"},
                            {"code", "--code"},           {"runPolicy.backoffLimit", "--retries"}};
    return submit.complete(ctx);
}

util::Status RunOptions::validate() {
    return submit.validate();
}

int RunOptions::run(Context& ctx) const {
    if (print_job_file) {
        ctx.out << job_file;
        return k_exit_ok;
    }
    return submit.run(ctx);
}

}  // namespace kftrain::cli
