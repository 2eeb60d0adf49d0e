#include "cli/verbs/job/wait_loop.h"

#include <fmt/format.h>

#include <chrono>
#include <set>
#include <thread>

#include "cli/view/status_view.h"
#include "job/exit_codes.h"
#include "job/names.h"
#include "util/time_text.h"

namespace kftrain::cli {
namespace {

using Clock = std::chrono::steady_clock;

const char* condition_name(job::WaitFor condition) {
    switch (condition) {
        case job::WaitFor::Created:
            return "created";
        case job::WaitFor::Running:
            return "running";
        case job::WaitFor::Succeeded:
            return "succeeded";
        case job::WaitFor::Suspended:
            return "suspended";
        case job::WaitFor::Admitted:
            return "admitted";
    }
    return "?";
}

// Print what changed since the last look: the state and new diagnosis lines.
void print_changes(Context& ctx, const job::JobStatus& status, std::string& last_state,
                   std::set<std::string>& shown) {
    std::string state = view::format_state(status);
    if (state != last_state) {
        ctx.out << fmt::format("{}: {}", job::job_ref(status.kind, status.name), state)
                << std::endl;
        last_state = state;
    }
    for (const auto& line : status.diagnosis) {
        if (shown.insert(line).second) {
            ctx.out << "  " << line << std::endl;
        }
    }
}

int finish(Context& ctx, const std::string& job, job::WaitVerdict verdict,
           const job::JobStatus& status, job::WaitFor condition) {
    if (verdict == job::WaitVerdict::Met) {
        return k_exit_ok;
    }
    if (verdict == job::WaitVerdict::Failed) {
        return report_error(ctx,
                            fmt::format("{} failed: {}", job::job_ref(status.kind, job),
                                        view::format_state(status)),
                            k_exit_job_failed);
    }
    return report_error(
        ctx,
        fmt::format("{} ended {} and can no longer be {}", job::job_ref(status.kind, job),
                    job::phase_name(status.phase), condition_name(condition)),
        k_exit_job_failed);
}

// Report the timeout with the job's last state seen, if any look answered in time.
int report_timeout(Context& ctx, const std::string& job, const WaitPlan& plan,
                   const std::optional<job::JobStatus>& last) {
    std::string what = last ? job::job_ref(last->kind, job) : job;
    std::string state = last ? fmt::format("it is {}", job::phase_name(last->phase))
                             : "the cluster had not answered yet";
    return report_error(ctx,
                        fmt::format("timed out after {} waiting for {} to be {} ({})",
                                    util::format_duration(plan.timeout_s), what,
                                    condition_name(plan.condition), state),
                        k_exit_timeout);
}

}  // namespace

int wait_for_job(job::Backend& backend, const std::string& job, const WaitPlan& plan, Context& ctx,
                 std::optional<Clock::time_point> give_up_at) {
    auto deadline =
        give_up_at.value_or(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                               std::chrono::duration<double>(plan.timeout_s)));
    std::string last_state;
    std::set<std::string> shown;
    std::optional<job::JobStatus> last;
    while (true) {
        auto status = backend.status_without_progress(job);  // wait prints no progress
        const bool late = plan.timeout_s > 0 && Clock::now() >= deadline;
        if (!status && late) {  // the look itself ran out of time: kubectl was stopped
            return report_timeout(ctx, job, plan, last);
        }
        if (!status) {
            return report_error(ctx, status.error(), status.error_code(k_exit_cluster));
        }
        print_changes(ctx, *status, last_state, shown);
        job::WaitVerdict verdict = job::judge_wait(plan.condition, *status);
        if (verdict != job::WaitVerdict::Pending) {
            return finish(ctx, job, verdict, *status, plan.condition);
        }
        last = *status;
        if (late) {
            return report_timeout(ctx, job, plan, last);
        }
        auto pause = std::chrono::duration<double>(plan.interval_s);
        if (plan.timeout_s > 0) {
            pause = std::min<std::chrono::duration<double>>(pause, deadline - Clock::now());
        }
        std::this_thread::sleep_for(pause);
    }
}

}  // namespace kftrain::cli
