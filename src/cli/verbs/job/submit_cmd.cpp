#include "cli/verbs/job/submit_cmd.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <memory>

#include "backend/select.h"
#include "cli/flags.h"
#include "cli/job_flags.h"
#include "cli/verb.h"
#include "cli/verbs/job/follow.h"
#include "cli/verbs/job/wait_loop.h"
#include "cli/view/manifest_text.h"
#include "cost/job_sizing.h"
#include "inspect/status_json.h"
#include "job/exit_codes.h"
#include "manifest/credentials.h"
#include "util/files.h"
#include "util/signals/interrupt.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_submit_examples =
    "Examples:\n"
    "  # Submit to the namespace ml-training of the context prod\n"
    "  kftrain submit -f examples/mnist-ddp.yaml -n ml-training --context prod\n"
    "  # Print exactly what would be applied; runs no kubectl\n"
    "  kftrain submit -f examples/mnist-ddp.yaml --dry-run\n"
    "  # Wait in the Kueue LocalQueue team-a at priority high; kftrain status shows its place\n"
    "  kftrain submit -f examples/mnist-ddp.yaml --queue team-a --priority-class high\n"
    "  # Let the API server and the operator's webhook check it, creating nothing\n"
    "  kftrain submit -f examples/mnist-ddp.yaml --dry-run=server\n"
    "  # Run it on this machine, streaming the logs; the exit code is the job's result\n"
    "  kftrain submit -f examples/mnist-local.yaml --local --follow\n"
    "  # The same in a script's log: every progress line, no line updated in place\n"
    "  kftrain submit -f examples/mnist-local.yaml --local --follow --no-progress\n"
    "  # Locally, give the replicas a variable the job takes from a Secret on the cluster\n"
    "  kftrain submit -f examples/mnist-local.yaml --local --env-from-shell MLFLOW_TRACKING_TOKEN";

}  // namespace

CLI::Option* add_submit_flags(CLI::App& sub, SubmitOptions& options) {
    auto* dry_run = sub.add_option("--dry-run", options.dry_run,
                                   "client (or no value): print what would be applied and run "
                                   "nothing; server: let the API server check it, create nothing")
                        ->expected(0, 1);
    sub.add_flag("--replace", options.replace,
                 "Local: stop and replace a running job of the same name");
    sub.add_flag("--force", options.force,
                 "Submit a job the namespace's ResourceQuotas can never admit (a warning, not "
                 "an error): its pods are refused until the quota is raised");
    add_env_from_shell_flag(sub, options.env_from_shell);
    sub.add_flag("--follow", options.follow,
                 "Stream the replicas' logs until the job ends; exit 0 if it "
                 "Succeeded, 1 if it Failed");
    sub.add_flag("--wait", options.wait,
                 "Wait until the job ends: exit 0 if it Succeeded, 1 if it Failed")
        ->excludes("--follow");
    sub.add_flag("--stop-on-interrupt", options.stop_on_interrupt,
                 "With --follow: Ctrl-C stops the job too (by default only the following)");
    sub.add_flag("--no-progress", options.no_progress,
                 "With --follow on a terminal: print every progress line instead of one live "
                 "line per replica group updated in place");
    sub.add_option("--state-out", options.state_out,
                   "With --follow or --wait: when the job ends, write its state (Succeeded or "
                   "Failed) to this file, making its directory (a pipeline step's output)");
    sub.add_option("--metrics-out", options.metrics_out,
                   "With --follow or --wait: when the job ends, write its last progress (loss, "
                   "accuracy, its own metrics) as a JSON object to this file");
    add_cost_guard_flags(sub, options.cost);  // estimate feature: --max-cost
    return dry_run;
}

void read_bare_dry_run(const CLI::Option& dry_run, SubmitOptions& options) {
    if (dry_run.count() > 0 && (dry_run.results().empty() || dry_run.results()[0].empty())) {
        options.dry_run = "client";
    }
}

void setup_submit(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<SubmitOptions>();
    auto* sub = app.add_subcommand("submit", "Submit a job to the cluster (kubectl apply)");
    sub->footer(k_submit_examples);
    add_job_input_flags(*sub, options->job);
    add_queue_flags(*sub, options->job);
    add_retries_flag(*sub, options->job);
    const CLI::Option* dry_run = add_submit_flags(*sub, *options);
    sub->callback([options, dry_run, &ctx] {
        read_bare_dry_run(*dry_run, *options);
        ctx.exit_code = run_verb(*options, ctx);
    });
}

util::Status SubmitOptions::complete(const Context& ctx) {
    auto loaded = load::load_and_render(job, ctx.global, ctx.err);
    if (!loaded) {
        return loaded.error_value();
    }
    rendered = std::move(*loaded);
    namespace_ = rendered.spec.namespace_;
    return util::ok_status();
}

util::Status SubmitOptions::validate() {
    auto parsed = parse_dry_run(dry_run);
    if (!parsed) {
        return parsed.error_value();
    }
    dry = *parsed;
    if (dry != job::DryRun::None && (wait || follow)) {
        return util::error(fmt::format("{}: a dry run creates no job to {} (drop --dry-run or {})",
                                       wait ? "--wait" : "--follow", wait ? "wait for" : "follow",
                                       wait ? "--wait" : "--follow"));
    }
    if (auto names = load::check_env_from_shell(env_from_shell); !names) {
        return names;
    }
    for (const auto& [flag, value] :
         {std::pair{"--state-out", state_out}, {"--metrics-out", metrics_out}}) {
        if (!value.empty() && !wait && !follow) {
            return util::error(fmt::format("{}: needs --follow or --wait (got {})", flag, value));
        }
        if (auto refused = load::refuse_stdin(flag, value); !refused) {
            return refused;
        }
    }
    if (stop_on_interrupt && !follow) {
        return util::error("--stop-on-interrupt: needs --follow (got --stop-on-interrupt alone)");
    }
    return cost::validate_cost_guard(cost);  // estimate feature: --max-cost
}

int SubmitOptions::run(Context& ctx) const {
    manifest::print_credential_warnings(rendered.spec, ctx.err);
    // Estimate feature: refuse a job over --max-cost before anything is printed or applied.
    auto within = cost::check_cost_guard(cost, rendered.spec,
                                         job::asks_local(ctx.global, rendered.spec.backend));
    if (!within) {
        return report_error(ctx, within.error(), within.error_code(k_exit_bad_input));
    }
    // Estimate feature: a memory limit under the measured peak, or requests far over the use.
    const bool on_cluster = !job::asks_local(ctx.global, rendered.spec.backend);
    for (const std::string& warning : cost::sizing_warnings(rendered.spec, on_cluster)) {
        ctx.err << "kftrain: warning: " << warning << "\n";
    }
    if (dry == job::DryRun::Client) {
        if (rendered.code) {  // what submit would apply first
            ctx.out << view::format_manifest(rendered.code_config_map, view::OutputFormat::Yaml)
                    << "---\n";
        }
        if (rendered.runtime.IsMap()) {  // the retry budget's runtime (a TrainJob)
            ctx.out << view::format_manifest(rendered.runtime, view::OutputFormat::Yaml) << "---\n";
        }
        ctx.out << view::format_manifest(rendered.manifest, view::OutputFormat::Yaml);
        return k_exit_ok;
    }
    job::SubmitFlags flags;
    flags.dry_run = dry;
    flags.replace = replace;
    flags.env_from_shell = env_from_shell;
    flags.force = force;
    flags.estimated_cost = *within;
    auto backend = backend::make_backend(ctx, rendered.spec.backend, namespace_);
    if (follow && backend->capabilities().logs_need_interrupt_catch) {
        util::catch_interrupts();  // a Ctrl-C from here on is handled after the start
    }
    job::Reporter report{ctx.out, ctx.err};
    auto submitted = backend->submit(rendered, flags, report);
    if (!submitted) {
        return report_error(ctx, submitted.error(), submitted.error_code(k_exit_cluster));
    }
    ctx.out << *submitted << "\n";
    if (dry != job::DryRun::None) {
        return k_exit_ok;
    }
    if (!wait && !follow) {
        return k_exit_ok;
    }
    const int code = wait ? wait_for_job(*backend, rendered.spec.name, WaitPlan{}, ctx)
                          : cli::follow_job(*backend, rendered.spec.name, rendered.spec.replicas,
                                            {stop_on_interrupt, no_progress}, ctx);
    if (state_out.empty() && metrics_out.empty()) {
        return code;
    }
    if (auto written = write_outputs(*backend, ctx); !written) {
        report_error(ctx, written.error(), k_exit_cluster);
        return code == k_exit_ok ? k_exit_cluster : code;
    }
    return code;
}

util::Status SubmitOptions::write_outputs(job::Backend& backend, Context& ctx) const {
    auto status = backend.status(rendered.spec.name);
    if (!status) {
        return util::error(
            fmt::format("--state-out: cannot read the job's state: {}", status.error()));
    }
    const std::pair<const std::string*, std::string> outputs[] = {
        {&state_out, job::phase_name(status->phase)},
        {&metrics_out, (status->progress ? inspect::progress_to_json(*status->progress)
                                         : nlohmann::json::object())
                           .dump()}};
    for (const auto& [path, text] : outputs) {
        if (path->empty()) {
            continue;
        }
        std::error_code ec;
        const auto dir = std::filesystem::path(*path).parent_path();
        if (!dir.empty()) {
            std::filesystem::create_directories(dir, ec);
        }
        // Written beside and renamed over: a FIFO or a reader never sees half a file, and
        // nothing blocks on a FIFO no one reads.
        if (auto written = util::write_file_atomic(*path, text); !written) {
            return util::error(fmt::format(
                "{}: {}", path == &state_out ? "--state-out" : "--metrics-out", written.error()));
        }
    }
    ctx.err << fmt::format("outputs written: state {}", job::phase_name(status->phase))
            << std::endl;
    return util::ok_status();
}

}  // namespace kftrain::cli
