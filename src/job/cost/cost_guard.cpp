#include "job/cost/cost_guard.h"

#include <fmt/format.h>

#include "estimate/units.h"
#include "job/cost/estimate_inputs.h"
#include "job/exit_codes.h"
#include "job/input.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::job::cost {

void add_cost_guard_flags(CLI::App& sub, CostGuard& guard) {
    sub.add_option("--max-cost", guard.max_cost,
                   "Refuse (exit 2) when the estimated cost of the job at its replicas is more "
                   "than this many dollars; see 'kftrain estimate'");
    sub.add_option("--profile", guard.profile,
                   "With --max-cost: profile measured by kftrain-trainer --benchmark or by "
                   "kftrain estimate --measure (default: the one --measure saved for the job, "
                   "else for kftrain-trainer a built-in one)");
    sub.add_option("--gpu", guard.gpu,
                   "With --max-cost: GPU type to price the job's GPUs (a100, h100, l4, t4, v100)");
    sub.add_option("--prices", guard.prices,
                   "With --max-cost: price catalog (default: $KFTRAIN_PRICES, else built-in)");
}

util::Status validate_cost_guard(const CostGuard& guard) {
    if (guard.max_cost.empty()) {
        for (const auto& [flag, value] : {std::pair{"--profile", guard.profile},
                                          {"--gpu", guard.gpu},
                                          {"--prices", guard.prices}}) {
            if (!value.empty()) {
                return util::error(fmt::format("{}: needs --max-cost (got {})", flag, value));
            }
        }
        return util::ok_status();
    }
    if (!estimate::parse_money(guard.max_cost)) {
        return util::error(fmt::format("--max-cost: must be an amount such as 50 or 12.50 (got {})",
                                       guard.max_cost));
    }
    if (auto refused = job::refuse_stdin("--profile", guard.profile); !refused) {
        return refused;
    }
    return job::refuse_stdin("--prices", guard.prices);
}

int check_cost_guard(const CostGuard& guard, const manifest::JobSpec& spec, job::Context& ctx) {
    if (guard.max_cost.empty()) {
        return k_exit_ok;
    }
    const double budget = estimate::parse_money(guard.max_cost).value_or(0);
    estimate::PlanFlags flags;
    flags.workers = {spec.replicas};
    flags.gpu = guard.gpu;
    flags.local = ctx.global.local || spec.backend == "local";
    auto report = build_report(spec, flags, estimate::Goal{estimate::Goal::Kind::budget, budget},
                               {guard.profile.empty() ? std::vector<std::string>()
                                                      : std::vector<std::string>{guard.profile},
                                guard.prices},
                               "--max-cost");
    if (!report) {
        return job::report_error(ctx, report.error(), k_exit_bad_input);
    }
    const estimate::SizeEstimate& size = report->estimate.sizes.front();
    if (report->choice) {
        return k_exit_ok;
    }
    return job::report_error(
        ctx,
        fmt::format("--max-cost: the estimated cost of {} is {} ({} at {} per "
                    "replica-hour{}), more than the budget; nothing was submitted (got {})",
                    util::counted(size.replicas, "replica"),
                    estimate::format_money(size.cost.value_or(0)),
                    util::format_duration(size.total_s),
                    estimate::format_money(report->plan.input.price_per_replica_hour.value_or(0)),
                    report->plan.profile.measured ? "" : ", built-in profile", guard.max_cost),
        k_exit_bad_input);
}

}  // namespace kftrain::job::cost
