#include "cli/verbs/job/suspend_cmd.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <thread>

#include "backend/select.h"
#include "cli/flags.h"
#include "cli/verb.h"
#include "cli/view/progress.h"
#include "job/exit_codes.h"
#include "job/names.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* k_suspend_examples =
    "Examples:\n"
    "  # Free a job's GPUs: its pods stop (the trainer checkpoints on SIGTERM), the job stays\n"
    "  kftrain suspend mnist-ddp -n ml-training\n"
    "  # Only patch the job, do not wait for its pods to be gone\n"
    "  kftrain suspend mnist-ddp --no-wait\n"
    "  # The same for a job on this machine: its replicas get SIGTERM\n"
    "  kftrain suspend mnist-ddp --local\n"
    "  # Later: run it again from its newest checkpoint\n"
    "  kftrain resume mnist-ddp\n\n"
    "Exit codes: 0 suspended, 1 suspended but its last checkpoint failed (a resume starts\n"
    "from the one before), 2 the job has finished, 3 not found, 4 cluster error,\n"
    "5 timed out (the job stays suspended).";

int report_timeout(Context& ctx, const job::Backend& backend, const job::JobStatus& last,
                   job::Change change, double timeout_s) {
    const bool suspend = change == job::Change::Suspend;
    return report_error(
        ctx,
        fmt::format("timed out after {} waiting for the {} of {} to {} (it is {}); the job "
                    "stays {}",
                    util::format_duration(timeout_s), backend.capabilities().replicas_are,
                    job::job_ref(last.kind, last.name), suspend ? "stop" : "start again",
                    job::phase_name(last.phase), suspend ? "suspended" : "resumed"),
        k_exit_timeout);
}

// Poll the job until the change has taken effect or the deadline passes.
int wait_settled(Context& ctx, job::Backend& backend, job::JobStatus last, job::Change change,
                 const ChangePlan& plan, std::optional<Clock::time_point> deadline) {
    while (true) {
        auto status = backend.status_without_progress(last.name);
        const bool late = deadline && Clock::now() >= *deadline;
        if (!status && late) {  // the look itself ran out of time: kubectl was stopped
            return report_timeout(ctx, backend, last, change, plan.timeout_s);
        }
        if (!status) {
            return report_error(ctx, status.error(), status.error_code(k_exit_cluster));
        }
        if (job::change_settled(change, *status)) {
            return k_exit_ok;
        }
        last = *status;
        if (late) {
            return report_timeout(ctx, backend, last, change, plan.timeout_s);
        }
        auto pause = std::chrono::duration<double>(plan.interval_s);
        if (deadline) {
            pause = std::min<std::chrono::duration<double>>(pause, *deadline - Clock::now());
        }
        std::this_thread::sleep_for(pause);
    }
}

// Where a resumed job starts, from what it said of its checkpoints before: " from its checkpoint
// of step 938 (it had reached step 1407: 469 steps to train again)"; "" when it said nothing.
std::string resume_point(const job::JobStatus& before) {
    if (!before.checkpoint) {
        return "";
    }
    const auto& from = before.checkpoint->step;
    if (!from) {
        return " from the start: no checkpoint was written";
    }
    std::optional<long long> reached = before.checkpoint->failed_step;
    if (before.progress && before.progress->global_step &&
        (!reached || *before.progress->global_step > *reached)) {
        reached = before.progress->global_step;
    }
    if (!reached || *reached <= *from) {
        return fmt::format(" from its checkpoint of step {}", *from);
    }
    return fmt::format(
        " from its checkpoint of step {} (it had reached step {}: {} to train again)", *from,
        *reached, util::counted(*reached - *from, "step"));
}

}  // namespace

void add_change_flags(CLI::App& sub, SuspendOptions& options) {
    sub.add_option("job", options.job, "Name of the job")->required();
    sub.add_option("--timeout", options.timeout,
                   duration_help("Give up waiting this long after the change; 0: never; the "
                                 "change stays"))
        ->default_str("5m");
    sub.add_option("--interval", options.interval, duration_help("How often to look at the job"))
        ->default_str("2s");
    sub.add_flag("--no-wait", options.no_wait, "Return once the job is changed");
}

void setup_suspend(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<SuspendOptions>();
    auto* sub = app.add_subcommand(
        "suspend", "Suspend a job: its replicas stop (checkpointing first), the job stays");
    sub->footer(k_suspend_examples);
    add_change_flags(*sub, *options);
    run_when_parsed(*sub, options, ctx);
}

util::Status SuspendOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status SuspendOptions::validate() {
    if (auto named = job::check_object_name("job name", job); !named) {
        return named;
    }
    auto limit = util::parse_duration_flag("--timeout", timeout, util::k_any_duration);
    if (!limit) {
        return limit.error_value();
    }
    auto every = util::parse_duration_flag("--interval", interval, util::k_positive_duration);
    if (!every) {
        return every.error_value();
    }
    plan = ChangePlan{*limit, *every, !no_wait};
    return util::ok_status();
}

int SuspendOptions::run(Context& ctx) const {
    auto backend = backend::make_backend(ctx, "", namespace_);
    auto status = backend->status_without_progress(job);
    if (!status) {
        return report_error(ctx, status.error(), status.error_code(k_exit_cluster));
    }
    if (auto allowed = job::check_change(change, *status); !allowed) {
        return report_error(ctx, allowed.error(), allowed.error_code(k_exit_bad_input));
    }
    const bool suspend = change == job::Change::Suspend;
    if (auto changed = backend->set_suspended(job, suspend); !changed) {
        return report_error(ctx, changed.error(), changed.error_code(k_exit_cluster));
    }
    const std::string ref = job::job_ref(status->kind, job);
    if (!plan.wait) {
        ctx.out << ref << (suspend ? " suspend requested\n" : " resume requested\n");
        return k_exit_ok;
    }
    // --timeout counts from the change and is a promise on the wall clock: no kubectl call of
    // the wait runs past it.
    std::optional<Clock::time_point> deadline;
    if (plan.timeout_s > 0) {
        deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(plan.timeout_s));
        backend = backend::make_backend(ctx, "", namespace_, deadline);
    }
    int code = wait_settled(ctx, *backend, *status, change, plan, deadline);
    if (code != k_exit_ok) {
        return code;
    }
    if (!suspend) {
        ctx.out << ref << " resumed" << resume_point(*status) << "\n";
        return k_exit_ok;
    }
    // The checkpoint the replicas wrote as they stopped is what a resume starts from: one that
    // failed (a full disk) loses the work since the one before, which the user must hear now.
    if (backend->capabilities().keeps_checkpoint_after_stop) {
        auto stopped = backend->status_without_progress(job);
        if (stopped && stopped->checkpoint && stopped->checkpoint->failed) {
            return report_error(ctx,
                                fmt::format("{} is suspended, but its last checkpoint failed: {}",
                                            ref, view::format_checkpoint(*stopped->checkpoint)),
                                k_exit_job_failed);
        }
    }
    ctx.out << ref << " suspended\n";
    return k_exit_ok;
}

}  // namespace kftrain::cli
