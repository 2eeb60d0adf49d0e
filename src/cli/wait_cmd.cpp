#include "cli/wait_cmd.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <set>
#include <thread>

#include "cli/exit_codes.h"
#include "cli/status_view.h"
#include "cli/time_text.h"

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
    "  kftrain wait mnist-ddp --for running && kftrain logs mnist-ddp -f\n\n"
    "Exit codes: 0 the condition holds, 1 the job failed, 3 not found, 4 cluster error,\n"
    "5 timed out.";

const char* condition_name(WaitFor condition) {
    switch (condition) {
        case WaitFor::Created:
            return "created";
        case WaitFor::Running:
            return "running";
        case WaitFor::Succeeded:
            return "succeeded";
        case WaitFor::Suspended:
            return "suspended";
    }
    return "?";
}

// Print what changed since the last look: the state and new diagnosis lines.
void print_changes(Context& ctx, const JobStatus& status, std::string& last_state,
                   std::set<std::string>& shown) {
    std::string state = format_state(status);
    if (state != last_state) {
        ctx.out << fmt::format("pytorchjob/{}: {}", status.name, state) << std::endl;
        last_state = state;
    }
    for (const auto& line : status.diagnosis) {
        if (shown.insert(line).second) {
            ctx.out << "  " << line << std::endl;
        }
    }
}

// "0.3s" below a minute, "2h0m" above.
std::string timeout_label(double seconds) {
    return seconds < 60 ? fmt::format("{:g}s", seconds) : format_duration(seconds);
}

int finish(Context& ctx, const std::string& job, WaitVerdict verdict, const JobStatus& status,
           WaitFor condition) {
    if (verdict == WaitVerdict::Met) {
        return k_exit_ok;
    }
    if (verdict == WaitVerdict::Failed) {
        return report_error(ctx, fmt::format("pytorchjob/{} failed: {}", job, format_state(status)),
                            k_exit_job_failed);
    }
    return report_error(ctx,
                        fmt::format("pytorchjob/{} ended {} and can no longer be {}", job,
                                    phase_name(status.phase), condition_name(condition)),
                        k_exit_job_failed);
}

}  // namespace

void setup_wait(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<WaitOptions>();
    auto* sub = app.add_subcommand("wait", "Wait until a job succeeds (or runs, or is created)");
    sub->footer(k_wait_examples);
    sub->add_option("job", options->job, "Name of the job")->required();
    sub->add_option("--for", options->condition,
                    "What to wait for: succeeded, running, created or suspended")
        ->default_str("succeeded");
    sub->add_option("--timeout", options->timeout, "Give up after this long (2h, 30m; 0: never)")
        ->default_str("0");
    sub->add_option("--interval", options->interval, "How often to look at the job")
        ->default_str("5s");
    sub->callback([options, &ctx] {
        std::string invalid = validate_wait(*options);
        if (!invalid.empty()) {
            ctx.exit_code = report_error(ctx, invalid, k_exit_bad_input);
            return;
        }
        ctx.exit_code = run_wait(*options, ctx);
    });
}

std::string validate_wait(const WaitOptions& options) {
    if (!parse_wait_for(options.condition)) {
        return fmt::format("--for: must be succeeded, running, created or suspended (got {})",
                           options.condition);
    }
    if (!parse_duration(options.timeout)) {
        return fmt::format("--timeout: not a duration such as 30m or 2h (got {})", options.timeout);
    }
    auto interval = parse_duration(options.interval);
    if (!interval || *interval <= 0) {
        return fmt::format("--interval: must be a positive duration such as 5s (got {})",
                           options.interval);
    }
    return "";
}

int run_wait(const WaitOptions& options, Context& ctx) {
    WaitPlan plan{*parse_wait_for(options.condition), *parse_duration(options.timeout),
                  *parse_duration(options.interval)};
    auto backend = make_backend(ctx, "");
    return wait_for_job(*backend, options.job, plan, ctx);
}

int wait_for_job(Backend& backend, const std::string& job, const WaitPlan& plan, Context& ctx) {
    auto deadline = Clock::now() + std::chrono::duration<double>(plan.timeout_s);
    std::string last_state;
    std::set<std::string> shown;
    while (true) {
        auto status = backend.status_without_progress(job);  // wait prints no progress
        if (!status) {
            return report_error(ctx, status.error(), status.error_code(k_exit_cluster));
        }
        print_changes(ctx, *status, last_state, shown);
        WaitVerdict verdict = judge_wait(plan.condition, status->phase);
        if (verdict != WaitVerdict::Pending) {
            return finish(ctx, job, verdict, *status, plan.condition);
        }
        if (plan.timeout_s > 0 && Clock::now() >= deadline) {
            return report_error(
                ctx,
                fmt::format("timed out after {} waiting for pytorchjob/{} to be "
                            "{} (it is {})",
                            timeout_label(plan.timeout_s), job, condition_name(plan.condition),
                            phase_name(status->phase)),
                k_exit_timeout);
        }
        auto pause = std::chrono::duration<double>(plan.interval_s);
        if (plan.timeout_s > 0) {
            pause = std::min<std::chrono::duration<double>>(pause, deadline - Clock::now());
        }
        std::this_thread::sleep_for(pause);
    }
}

}  // namespace kftrain::cli
