#include "cli/verbs/job/wait_cmd.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>

#include "backend/select.h"
#include "cli/flags.h"
#include "cli/verb.h"
#include "job/exit_codes.h"
#include "job/names.h"
#include "util/time_text.h"

namespace kftrain::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* k_wait_examples =
    "Examples:\n"
    "  # Wait until the job succeeds; exit 1 as soon as it fails\n"
    "  kftrain wait mnist-ddp -n ml-training\n"
    "  # Give up after two hours (exit 5)\n"
    "  kftrain wait mnist-ddp --timeout 2h\n"
    "  # Wait until its pods run, then follow the logs\n"
    "  kftrain wait mnist-ddp --for running && kftrain logs mnist-ddp -f\n"
    "  # Wait until Kueue admits the queued job (kftrain submit --queue)\n"
    "  kftrain wait mnist-ddp --for admitted --timeout 1h\n\n"
    "Exit codes: 0 the condition holds, 1 the job failed, 3 not found, 4 cluster error,\n"
    "5 timed out.";

}  // namespace

void setup_wait(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<WaitOptions>();
    auto* sub = app.add_subcommand("wait", "Wait until a job succeeds (or runs, or is created)");
    sub->footer(k_wait_examples);
    sub->add_option("job", options->job, "Name of the job")->required();
    sub->add_option("--for", options->condition,
                    "What to wait for: succeeded, running, created, suspended or admitted (by "
                    "its Kueue queue; a queued job waits for running too)")
        ->default_str("succeeded");
    sub->add_option("--timeout", options->timeout,
                    duration_help("Give up after this long; 0: never"))
        ->default_str("0");
    sub->add_option("--interval", options->interval, duration_help("How often to look at the job"))
        ->default_str("5s");
    run_when_parsed(*sub, options, ctx);
}

util::Status WaitOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status WaitOptions::validate() {
    if (auto named = job::check_object_name("job name", job); !named) {
        return named;
    }
    auto wanted = job::parse_wait_for(condition);
    if (!wanted) {
        return util::error(fmt::format(
            "--for: must be succeeded, running, created, suspended or admitted (got {})",
            condition));
    }
    auto limit = util::parse_duration_flag("--timeout", timeout, util::k_any_duration);
    if (!limit) {
        return limit.error_value();
    }
    auto every = util::parse_duration_flag("--interval", interval, util::k_positive_duration);
    if (!every) {
        return every.error_value();
    }
    plan = WaitPlan{*wanted, *limit, *every};
    return util::ok_status();
}

int WaitOptions::run(Context& ctx) const {
    // --timeout is a promise on the wall clock: no kubectl call runs past it.
    std::optional<Clock::time_point> give_up_at;
    if (plan.timeout_s > 0) {
        give_up_at = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(plan.timeout_s));
    }
    auto backend = backend::make_backend(ctx, "", namespace_, give_up_at);
    return wait_for_job(*backend, job, plan, ctx, give_up_at);
}

}  // namespace kftrain::cli
