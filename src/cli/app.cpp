#include "cli/app.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>

#include "cli/context.h"
#include "cli/flags.h"
#include "cli/help/help_format.h"
#include "cli/verbs/completion_cmd.h"
#include "cli/verbs/data_cmd.h"
#include "cli/verbs/doctor_cmd.h"
#include "cli/verbs/estimate_cmd.h"
#include "cli/verbs/history/cost_cmd.h"
#include "cli/verbs/history/history_cmd.h"
#include "cli/verbs/history/prune_cmd.h"
#include "cli/verbs/init_cmd.h"
#include "cli/verbs/job/archive_cmd.h"
#include "cli/verbs/job/delete_cmd.h"
#include "cli/verbs/job/describe_cmd.h"
#include "cli/verbs/job/diagnose_cmd.h"
#include "cli/verbs/job/list_cmd.h"
#include "cli/verbs/job/logs_cmd.h"
#include "cli/verbs/job/resume_cmd.h"
#include "cli/verbs/job/scale_cmd.h"
#include "cli/verbs/job/status_cmd.h"
#include "cli/verbs/job/submit_cmd.h"
#include "cli/verbs/job/suspend_cmd.h"
#include "cli/verbs/job/wait_cmd.h"
#include "cli/verbs/mcp_cmd.h"
#include "cli/verbs/pipeline_cmd.h"
#include "cli/verbs/queues_cmd.h"
#include "cli/verbs/render_cmd.h"
#include "cli/verbs/run_cmd.h"
#include "cli/verbs/runtimes_cmd.h"
#include "cli/verbs/supervise_cmd.h"
#include "cli/verbs/top_cmd.h"
#include "cli/verbs/tune_cmd.h"
#include "cli/verbs/version_cmd.h"
#include "job/exit_codes.h"
#include "manifest/suggest.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_description =
    "kftrain: train PyTorch models across many machines with Kubeflow.\n"
    "Renders a short job file into a Kubeflow training job (a PyTorchJob, TFJob,\n"
    "XGBoostJob or JAXJob of the Training Operator, or a Kubeflow Trainer v2 TrainJob\n"
    "on any runtime), submits it with kubectl, and runs the same job on this machine\n"
    "with --local.";

constexpr const char* k_footer =
    "Examples:\n"
    "  # Print the PyTorchJob a job file makes\n"
    "  kftrain render -f examples/mnist-ddp.yaml\n"
    "  # Submit it to the cluster of the current kubectl context\n"
    "  kftrain submit -f examples/mnist-ddp.yaml -n ml-training\n"
    "  # Your script, no job file and no image: this folder goes with the job\n"
    "  kftrain run --replicas 2 --follow -- python3 train.py --lr 0.1\n"
    "  # Search hyperparameters: a Katib Experiment, or trials here with --local\n"
    "  kftrain tune -f examples/mnist-ddp.yaml --param lr=0.001:0.1:log --max-trials 12\n"
    "  # Write a commented starter job file\n"
    "  kftrain init > job.yaml\n\n"
    "Exit codes: 0 ok, 1 job failed, 2 bad input, 3 not found, 4 cluster or kubectl\n"
    "error, 5 timed out, 130 interrupted.";

// An empty value is an unset variable in a script, never the flag's default.
std::string refuse_empty(const std::string& value) {
    return value.empty() ? std::string("must not be empty") : std::string();
}

// Refuse an empty duration as the duration flags do (the verbs check the rest).
std::string refuse_empty_duration(const std::string& value) {
    return value.empty() ? util::parse_duration(value).error() : std::string();
}

// Refuse an empty value of the option named name (as "--output") in every verb under app.
void refuse_empty_everywhere(CLI::App& app, const std::string& name) {
    if (CLI::Option* option = app.get_option_no_throw(name)) {
        option->check(refuse_empty);
    }
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        refuse_empty_everywhere(*sub, name);
    }
}

void add_global_flags(CLI::App& app, GlobalOptions& global) {
    app.add_option("-n,--namespace", global.namespace_,
                   "Namespace of the job (overrides the job file's namespace)")
        ->check(refuse_empty);
    app.add_option("--context", global.context, "kubeconfig context to use");
    app.add_option("--kubeconfig", global.kubeconfig, "Path to the kubeconfig file");
    app.add_option("--request-timeout", global.request_timeout,
                   duration_help("How long kubectl waits for each request; 0: no limit; also "
                                 "whole seconds (30), as kubectl takes them"))
        ->check(refuse_empty_duration);
    app.add_flag("--local", global.local, "Run on this machine instead of a cluster");
    app.add_flag("--from-history", global.from_history,
                 "status, describe, logs, diagnose: answer from the job's record in history "
                 "(kftrain history), even while the job exists");
}

// Return text with kftrain named program in its example lines ("  kftrain submit ...") and
// hints ("see 'kftrain init'").
std::string name_program_in(const std::string& text, const std::string& program) {
    const std::string self = "kftrain ";
    std::string named;
    bool line_start = true;  // nothing yet on this line
    bool indented = false;   // only spaces, at least one, so far on this line
    for (size_t i = 0; i < text.size();) {
        const bool quoted = i > 0 && text[i - 1] == '\'';
        if ((indented || quoted) && text.compare(i, self.size(), self) == 0) {
            named += program + " ";
            i += self.size();
            line_start = indented = false;
            continue;
        }
        const char c = text[i++];
        named += c;
        indented = c == ' ' && (line_start || indented);
        line_start = c == '\n';
    }
    return named;
}

// Name kftrain program in the help of app and every verb under it.
void name_program_in_help(CLI::App& app, const std::string& program) {
    app.footer(name_program_in(app.get_footer(), program));
    app.description(name_program_in(app.get_description(), program));
    for (CLI::Option* option : app.get_options()) {
        option->description(name_program_in(option->get_description(), program));
    }
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        name_program_in_help(*sub, program);
    }
}

// Return the option named name in the verb parsed last or, failing that, in a verb above it
// (the global flags); nullptr when none has it.
const CLI::Option* parsed_option(const CLI::App& app, const std::string& name) {
    std::vector<const CLI::App*> chain{&app};
    while (!chain.back()->get_subcommands().empty()) {
        chain.push_back(chain.back()->get_subcommands().back());
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (const CLI::Option* option = (*it)->get_option_no_throw(name)) {
            return option;
        }
    }
    return nullptr;
}

// Return whether text is an integer literal: an optional sign, then digits only.
bool integer_literal(const std::string& text) {
    const std::size_t digits = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
    return text.size() > digits &&
           std::all_of(text.begin() + static_cast<std::ptrdiff_t>(digits), text.end(),
                       [](unsigned char c) { return std::isdigit(c) != 0; });
}

// Return CLI11's "Could not convert: --tail = abc" as the project says it ("--tail: expected
// an integer (got abc)", "--tail: out of range (got 99999999999)"); other messages as they
// are. Plain string scans, no std::regex: its recursion overflows the stack on a value of
// 100 KB, which argv allows.
std::string conversion_message(const CLI::App& app, const std::string& message) {
    static const std::string k_prefix = "Could not convert: ";
    const std::size_t equals = message.find(" = ", k_prefix.size());
    if (message.compare(0, k_prefix.size(), k_prefix) != 0 || equals == std::string::npos) {
        return message;
    }
    const std::string name = message.substr(k_prefix.size(), equals - k_prefix.size());
    const std::string value = message.substr(equals + 3);
    const CLI::Option* option = parsed_option(app, name);
    const std::string type = option ? option->get_type_name() : "";
    const bool integer_type = type == "INT" || type == "UINT";
    if (integer_type && integer_literal(value)) {
        return fmt::format("{}: out of range (got {})", name, value);
    }
    const char* expected = integer_type      ? "an integer"
                           : type == "FLOAT" ? "a number"
                                             : "a value this flag takes";
    return fmt::format("{}: expected {} (got {})", name, expected, value);
}

// Print a command-line error with the verb's help hint; an unknown verb gets a suggestion.
int report_parse_error(CLI::App& app, const CLI::ParseError& e,
                       const std::vector<std::string>& args, Context& ctx) {
    std::string verb;
    for (const auto* sub : app.get_subcommands()) {
        verb = " " + sub->get_name();
    }
    std::string message = conversion_message(app, e.what());
    if (verb.empty() && !args.empty() && !args[0].empty() && args[0][0] != '-') {
        std::vector<std::string> verbs;
        for (const auto* sub : app.get_subcommands({})) {
            verbs.push_back(sub->get_name());
        }
        message =
            fmt::format("unknown command {}{}", args[0], manifest::did_you_mean(args[0], verbs));
    }
    ctx.err << "kftrain: error: " << util::escape_controls(message) << "\n"
            << "Run '" << app.get_name() << verb << " --help' for usage.\n";
    return k_exit_bad_input;
}

}  // namespace

std::string program_name(const std::string& argv0) {
    const size_t slash = argv0.rfind('/');
    const std::string base = slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
    return base == "kubectl-kftrain" ? "kubectl kftrain" : "kftrain";
}

std::unique_ptr<CLI::App> make_app(Context& ctx, const std::string& program) {
    auto made = std::make_unique<CLI::App>(k_description, program);
    CLI::App& app = *made;
    app.formatter(std::make_shared<help::HelpFormatter>());  // the verbs inherit it
    app.footer(k_footer);
    app.require_subcommand(1);
    app.fallthrough();
    app.set_version_flag("--version", std::string("kftrain ") + KFTRAIN_VERSION);
    add_global_flags(app, ctx.global);

    setup_render(app, ctx);
    setup_submit(app, ctx);
    setup_run(app, ctx);
    setup_status(app, ctx);
    setup_wait(app, ctx);
    setup_logs(app, ctx);
    setup_list(app, ctx);
    setup_delete(app, ctx);
    setup_suspend(app, ctx);
    setup_resume(app, ctx);
    setup_scale(app, ctx);
    setup_describe(app, ctx);
    setup_diagnose(app, ctx);
    setup_history(app, ctx);
    setup_prune(app, ctx);
    setup_cost(app, ctx);
    setup_archive(app, ctx);
    setup_doctor(app, ctx);
    setup_runtimes(app, ctx);
    setup_queues(app, ctx);
    setup_top(app, ctx);
    setup_tune(app, ctx);
    setup_init(app, ctx);
    setup_version(app, ctx);
    setup_estimate(app, ctx);
    setup_data(app, ctx);
    setup_pipeline(app, ctx);
    setup_mcp(app, ctx);
    setup_completion(app, ctx, [](Context& c) { return make_app(c); });
    setup_supervise(app, ctx);
    refuse_empty_everywhere(app, "--output");
    if (program != "kftrain") {
        name_program_in_help(app, program);
    }
    return made;
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            const std::string& program) {
    Context ctx{out, err, {}, k_exit_ok};
    std::unique_ptr<CLI::App> made = make_app(ctx, program);
    CLI::App& app = *made;

    auto separated = separate_run_command(app, args);
    if (!separated) {
        return report_error(ctx, separated.error(), k_exit_bad_input);
    }
    std::vector<std::string> reversed(separated->rbegin(), separated->rend());
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        const CLI::App* shown = &app;
        for (const auto* sub : app.get_subcommands()) {
            shown = sub;
        }
        // "Usage: kftrain submit", not CLI11's bare "Usage: submit".
        out << (shown == &app ? app.help() : shown->help(app.get_name()));
        return k_exit_ok;
    } catch (const CLI::CallForAllHelp&) {
        out << app.help("", CLI::AppFormatMode::All);
        return k_exit_ok;
    } catch (const CLI::CallForVersion& e) {
        out << e.what() << "\n";
        return k_exit_ok;
    } catch (const CLI::Success&) {
        return k_exit_ok;
    } catch (const CLI::ParseError& e) {
        return report_parse_error(app, e, args, ctx);
    }
    return ctx.exit_code;
}

}  // namespace kftrain::cli
