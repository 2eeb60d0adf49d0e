#include "cli/submit_cmd.h"

#include <fmt/format.h>

#include <memory>

#include "cli/backend.h"
#include "cli/exit_codes.h"
#include "cli/local/follow_job.h"
#include "cli/local/interrupt.h"
#include "cli/wait_cmd.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_submit_examples =
    "Examples:\n"
    "  # Submit to the namespace ml-training of the context prod\n"
    "  kftrain submit -f examples/mnist-ddp.yaml -n ml-training --context prod\n"
    "  # Print exactly what would be applied; runs no kubectl\n"
    "  kftrain submit -f examples/mnist-ddp.yaml --dry-run\n"
    "  # Let the API server and the operator's webhook check it, creating nothing\n"
    "  kftrain submit -f examples/mnist-ddp.yaml --dry-run=server\n"
    "  # Run it on this machine, streaming the logs; the exit code is the job's result\n"
    "  kftrain submit -f examples/mnist-local.yaml --local --follow";

}  // namespace

void setup_submit(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<SubmitOptions>();
    auto* sub = app.add_subcommand("submit", "Submit a job to the cluster (kubectl apply)");
    sub->footer(k_submit_examples);
    add_job_input_flags(*sub, options->job);
    auto* dry_run = sub->add_option("--dry-run", options->dry_run,
                                    "client (or no value): print what would be applied and run "
                                    "nothing; server: let the API server check it, create nothing")
                        ->expected(0, 1);
    sub->add_flag("--replace", options->replace,
                  "Local: stop and replace a running job of the same name");
    sub->add_flag("--follow", options->follow,
                  "Stream the replicas' logs until the job ends; exit 0 if it "
                  "Succeeded, 1 if it Failed");
    sub->add_flag("--wait", options->wait,
                  "Wait until the job ends: exit 0 if it Succeeded, 1 if it Failed")
        ->excludes("--follow");
    sub->add_flag("--stop-on-interrupt", options->stop_on_interrupt,
                  "With --follow: Ctrl-C stops the job too (by default only the following)");
    add_cost_guard_flags(*sub, options->cost);  // estimate feature: --max-cost
    sub->callback([options, dry_run, &ctx] {
        if (dry_run->count() > 0 && (dry_run->results().empty() || dry_run->results()[0].empty())) {
            options->dry_run = "client";
        }
        std::string invalid = validate_submit(*options);
        if (!invalid.empty()) {
            ctx.exit_code = report_error(ctx, invalid, k_exit_bad_input);
            return;
        }
        ctx.exit_code = run_submit(*options, ctx);
    });
}

std::string validate_submit(const SubmitOptions& options) {
    const std::string& d = options.dry_run;
    if (d != "none" && d != "client" && d != "server" && !d.empty()) {
        return fmt::format("--dry-run must be client or server (got {})", d);
    }
    if (options.stop_on_interrupt && !options.follow) {
        return "--stop-on-interrupt: needs --follow (got --stop-on-interrupt alone)";
    }
    return validate_cost_guard(options.cost);  // estimate feature: --max-cost
}

int run_submit(const SubmitOptions& options, Context& ctx) {
    auto job = load_and_render(options.job, ctx.global);
    if (!job) {
        return report_error(ctx, job.error(), k_exit_bad_input);
    }
    // Estimate feature: refuse a job over --max-cost before anything is printed or applied.
    if (int refused = check_cost_guard(options.cost, job->spec, ctx); refused != k_exit_ok) {
        return refused;
    }
    bool client_dry_run = options.dry_run.empty() || options.dry_run == "client";
    if (client_dry_run) {
        ctx.out << format_manifest(job->manifest, "yaml");
        return k_exit_ok;
    }
    SubmitFlags flags;
    flags.dry_run = options.dry_run;
    flags.replace = options.replace;
    if (ctx.global.namespace_.empty()) {
        ctx.global.namespace_ = job->spec.namespace_;  // --wait and --follow look there
    }
    auto backend = make_backend(ctx, job->spec.backend);
    if (options.follow && backend->name() == "local") {
        local::catch_interrupts();  // a Ctrl-C from here on is handled after the start
    }
    auto submitted = backend->submit(*job, flags);
    if (!submitted) {
        return report_error(ctx, submitted.error(), submitted.error_code(k_exit_cluster));
    }
    ctx.out << *submitted << "\n";
    if (options.wait && flags.dry_run == "none") {
        return wait_for_job(*backend, job->spec.name, WaitPlan{}, ctx);
    }
    if (options.follow && flags.dry_run == "none") {
        return local::follow_job(*backend, job->spec.name, job->spec.replicas,
                                 options.stop_on_interrupt, ctx);
    }
    return k_exit_ok;
}

}  // namespace kftrain::cli
