#include "cli/verbs/tune_cmd.h"

#include <fmt/format.h>

#include <ctime>
#include <memory>

#include "backend/select.h"
#include "cli/flags.h"
#include "cli/job_flags.h"
#include "cli/verb.h"
#include "cli/view/manifest_text.h"
#include "cli/view/search_view.h"
#include "inspect/status_json.h"
#include "job/exit_codes.h"
#include "job/names.h"
#include "manifest/trial_parameters.h"
#include "tune/experiment.h"
#include "tune/katib_checks.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_tune_examples =
    "Examples:\n"
    "  # Print the Katib Experiment that searches lr and momentum; runs nothing\n"
    "  kftrain tune -f examples/mnist-ddp.yaml --param lr=0.001:0.1:log --param "
    "momentum=0.5:0.95 --dry-run\n"
    "  # Search on the cluster: 12 trials, 3 at a time, until accuracy reaches 0.99\n"
    "  kftrain tune -f examples/mnist-ddp.yaml --param lr=0.001:0.1:log --param "
    "batchSize=32,64,128 --objective accuracy:maximize --goal 0.99 --max-trials 12 --parallel 3\n"
    "  # Your own script: search the ${trialParameters.lr} its args use, here\n"
    "  kftrain tune -f examples/python-ddp/tune.yaml --local\n"
    "  # The same search here, trials as local jobs (random or grid)\n"
    "  kftrain tune -f examples/mnist-tune-local.yaml --local\n"
    "  # Trials, their values and objective, the best marked\n"
    "  kftrain tune status mnist-tune\n"
    "  # One trial's logs; then remove the search and its trials\n"
    "  kftrain tune logs mnist-tune --trial 3\n"
    "  kftrain tune delete mnist-tune";

void add_tune_flags(CLI::App& sub, kftrain::tune::TuneFlags& flags) {
    sub.add_option("--param", flags.params,
                   "A value to search and its space: NAME=MIN:MAX[:log][:step=S] or "
                   "NAME=A,B,C, NAME a ${trialParameters.NAME} of the job's command, args or env, "
                   "or a trainer setting (overrides tune.params.NAME); repeat for more")
        ->allow_extra_args(false);
    sub.add_option("--objective", flags.objective,
                   "metric[:maximize|minimize]: kftrain-trainer's held-out accuracy (maximized) "
                   "or loss (minimized), or any metric a program of your own prints "
                   "(overrides tune.objective)");
    sub.add_option("--goal", flags.goal,
                   "Stop the search when a trial reaches this value (overrides tune.goal)");
    sub.add_option(
        "--max-trials", flags.max_trials,
        "Trials to run at most (overrides tune.maxTrials; default 12, or a grid's points "
        "if fewer)");
    sub.add_option(
        "--parallel", flags.parallel,
        "Trials running at once (overrides tune.parallel; default 3, or --max-trials if fewer)");
    sub.add_option(
        "--max-failed-trials", flags.max_failed_trials,
        "Failed trials that stop the search (overrides tune.maxFailedTrials; default 3, or "
        "--max-trials if fewer)");
    sub.add_option("--algorithm", flags.algorithm,
                   "random, grid, bayesianoptimization or tpe (overrides tune.algorithm; default "
                   "random; locally random or grid)");
    sub.add_option("--name", flags.name,
                   "Name of the search (overrides tune.name; default the job's name)");
}

// Run a subverb of tune once parsed. The subverbs reach the global flags through tune (CLI11's
// fallthrough), which would also hand them tune's own flags, unread: `tune delete NAME
// --dry-run` deleted the search. Such a flag is an error, and the subverb does not run.
template <class Options>
void run_tune_subverb(CLI::App& sub, const CLI::App& tune, std::shared_ptr<Options> options,
                      Context& ctx) {
    sub.callback([&sub, &tune, options, &ctx] {
        for (const CLI::Option* option : tune.get_options()) {
            if (option->count() > 0) {
                ctx.exit_code = report_error(
                    ctx,
                    fmt::format("tune {}: {} is a flag of tune itself (starting a search), not "
                                "of tune {}; nothing was done",
                                sub.get_name(), option->get_name(), sub.get_name()),
                    k_exit_bad_input);
                return;
            }
        }
        ctx.exit_code = run_verb(*options, ctx);
    });
}

void setup_tune_status(CLI::App& tune, Context& ctx) {
    auto options = std::make_shared<TuneStatusOptions>();
    auto* sub = tune.add_subcommand("status", "Show a search's trials, their values and the best");
    sub->add_option("name", options->name, "Name of the search")->required();
    sub->add_option("-o,--output", options->output, "Output format: table, wide, json or yaml");
    run_tune_subverb(*sub, tune, options, ctx);
}

void setup_tune_logs(CLI::App& tune, Context& ctx) {
    auto options = std::make_shared<TuneLogsOptions>();
    auto* sub = tune.add_subcommand("logs", "Print the logs of one trial's replicas");
    sub->add_option("name", options->name, "Name of the search")->required();
    sub->add_option("--trial", options->trial,
                    "The trial: its number in `tune status` (1, 2, ...) or its name")
        ->required();
    add_log_flags(*sub, options->logs);
    run_tune_subverb(*sub, tune, options, ctx);
}

void setup_tune_delete(CLI::App& tune, Context& ctx) {
    auto options = std::make_shared<TuneDeleteOptions>();
    auto* sub = tune.add_subcommand("delete", "Delete a search and its trials' jobs");
    sub->add_option("name", options->name, "Name of the search")->required();
    run_tune_subverb(*sub, tune, options, ctx);
}

}  // namespace

void setup_tune(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<TuneOptions>();
    auto* sub = app.add_subcommand(
        "tune", "Search hyperparameters: a Katib Experiment on the cluster, or trials here");
    sub->footer(k_tune_examples);
    sub->require_subcommand(0, 1);
    add_job_input_flags(*sub, options->job);
    add_queue_flags(*sub, options->job);
    sub->get_option("--file")->required(false);  // status, logs and delete take none
    add_tune_flags(*sub, options->flags);
    auto* dry_run = sub->add_option("--dry-run", options->dry_run,
                                    "client (or no value): print the Experiment and run nothing; "
                                    "server: let the API server and Katib's webhook check it")
                        ->expected(0, 1);
    sub->add_flag("--replace", options->replace,
                  "Local: delete an earlier search of the same name (its record and its trials' "
                  "jobs) before this one starts; without it a rerun is refused");
    add_env_from_shell_flag(*sub, options->env_from_shell);
    sub->add_option("-o,--output", options->output,
                    "With --dry-run: print the Experiment as yaml (default) or json");
    setup_tune_status(*sub, ctx);
    setup_tune_logs(*sub, ctx);
    setup_tune_delete(*sub, ctx);
    sub->callback([sub, options, dry_run, &ctx] {
        if (!sub->get_subcommands().empty()) {
            return;  // status, logs or delete ran
        }
        if (dry_run->count() > 0 && (dry_run->results().empty() || dry_run->results()[0].empty())) {
            options->dry_run = "client";
        }
        if (options->job.file.empty()) {
            ctx.exit_code = report_error(
                ctx,
                "tune: -f/--file is required to start a search (or give status, logs or "
                "delete)",
                k_exit_bad_input);
            return;
        }
        ctx.exit_code = run_verb(*options, ctx);
    });
}

util::Status TuneOptions::complete(const Context& ctx) {
    // A placeholder filled by --set is fixed for every trial: tuning it too is a contradiction
    // the job file's own check would only report as "uses no ${trialParameters.X}".
    const std::string prefix = manifest::k_placeholder_set_prefix;
    for (const auto& set : job.sets) {
        const auto eq = set.find('=');
        if (set.rfind(prefix, 0) != 0 || eq == std::string::npos) {
            continue;
        }
        const std::string name = set.substr(prefix.size(), eq - prefix.size());
        for (const auto& param : flags.params) {
            if (param.rfind(name + "=", 0) == 0) {
                return util::error(fmt::format(
                    "--param {}: --set {} fixes ${{trialParameters.{}}} for every trial; tune it "
                    "(--param) or fix it (--set), not both",
                    param, set, name));
            }
        }
    }
    auto loaded = load::load_job(job, ctx.global);
    if (!loaded) {
        return loaded.error_value();
    }
    auto spec = kftrain::tune::build_tune_spec(*loaded, flags);
    if (!spec) {
        return spec.error_value();
    }
    // Read once: every trial runs these files, whatever changes in the folder meanwhile. On a
    // cluster one ConfigMap, named after the search, that every trial's job mounts.
    auto code = load::read_job_code(*loaded, job, ctx.err);
    if (!code) {
        return code.error_value();
    }
    if (*code) {
        const manifest::CodeOwner owner{spec->name, manifest::CodeOwnerKind::search};
        manifest::attach_code(*loaded, **code, owner);
        request.code_config_map = manifest::code_config_map(*loaded, **code, owner);
    }
    request.code = std::move(*code);
    auto tmpl = load::job_template(job, loaded->kind);
    if (!tmpl) {
        return tmpl.error_value();
    }
    auto experiment = kftrain::tune::render_experiment(*loaded, *spec, *tmpl);
    if (!experiment) {
        return experiment.error_value();
    }
    if (request.code) {
        if (auto fits = manifest::check_job_bytes(*experiment, *request.code, "Experiment");
            !fits) {
            return fits;
        }
    }
    request.job = std::move(*loaded);
    request.spec = std::move(*spec);
    request.job_template = std::move(*tmpl);
    request.experiment = *experiment;
    request.report = view::search_report();
    return util::ok_status();
}

util::Status TuneOptions::validate() {
    auto parsed = parse_dry_run(dry_run);
    if (!parsed) {
        return parsed.error_value();
    }
    request.dry_run = *parsed;
    if (!output.empty()) {
        if (request.dry_run != job::DryRun::Client) {
            return util::error(fmt::format(
                "-o {}: only the Experiment of a client dry run is printed; add --dry-run",
                output));
        }
        auto parsed_format = view::parse_output_format(output, view::k_manifest_formats);
        if (!parsed_format) {
            return parsed_format.error_value();
        }
        format = *parsed_format;
    }
    request.replace = replace;
    if (auto names = load::check_env_from_shell(env_from_shell); !names) {
        return names;
    }
    request.env_from_shell = env_from_shell;
    if (auto checked = kftrain::tune::check_tune_spec(request.spec); !checked) {
        return checked;
    }
    return kftrain::tune::check_experiment(request.experiment);
}

int TuneOptions::run(Context& ctx) const {
    if (request.dry_run == job::DryRun::Client) {
        // As render: the code's ConfigMap first, which every trial's job mounts.
        std::vector<YAML::Node> documents;
        if (request.code) {
            documents.push_back(request.code_config_map);
        }
        documents.push_back(request.experiment);
        ctx.out << view::format_manifests(documents, format);
        return k_exit_ok;
    }
    auto backend = backend::make_search_backend(ctx, request.job.backend, request.job.namespace_);
    job::Reporter report{ctx.out, ctx.err};
    auto started = backend->start(request, report);
    return started ? *started
                   : report_error(ctx, started.error(), started.error_code(k_exit_cluster));
}

util::Status TuneStatusOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status TuneStatusOptions::validate() {
    if (auto named = job::check_object_name("search name", name); !named) {
        return named;
    }
    auto parsed = view::parse_output_format(output, view::k_job_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    return util::ok_status();
}

int TuneStatusOptions::run(Context& ctx) const {
    auto backend = backend::make_search_backend(ctx, "", namespace_);
    auto status = backend->status(name);
    if (!status) {
        return report_error(ctx, status.error(), status.error_code(k_exit_cluster));
    }
    view::print_search(ctx.out, *status, format, std::time(nullptr));
    // As wait: 0 while it runs and when it Succeeded, 1 when it Failed or was interrupted.
    const bool ended_badly = status->phase == "Failed" || status->phase == "Interrupted";
    return ended_badly ? k_exit_job_failed : k_exit_ok;
}

util::Status TuneLogsOptions::complete(const Context& ctx) {
    return logs.complete(ctx);
}

util::Status TuneLogsOptions::validate() {
    if (auto named = job::check_object_name("search name", name); !named) {
        return named;
    }
    const bool number =
        !trial.empty() && trial.find_first_not_of("0123456789") == std::string::npos;
    if (!number) {
        if (auto named = job::check_object_name("--trial", trial); !named) {
            return named;
        }
    }
    return logs.validate_flags();
}

int TuneLogsOptions::run(Context& ctx) {
    auto backend = backend::make_search_backend(ctx, "", logs.namespace_);
    auto job_name = backend->trial_job(name, trial);
    if (!job_name) {
        return report_error(ctx, job_name.error(), job_name.error_code(k_exit_cluster));
    }
    logs.job = *job_name;
    ctx.global.local = backend->on_this_machine();  // where the trial's job runs
    return logs.run(ctx);
}

util::Status TuneDeleteOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status TuneDeleteOptions::validate() const {
    return job::check_object_name("search name", name);
}

int TuneDeleteOptions::run(Context& ctx) const {
    auto backend = backend::make_search_backend(ctx, "", namespace_);
    auto removed = backend->remove(name);
    if (!removed) {
        return report_error(ctx, removed.error(), removed.error_code(k_exit_cluster));
    }
    ctx.out << *removed << "\n";
    return k_exit_ok;
}

}  // namespace kftrain::cli
