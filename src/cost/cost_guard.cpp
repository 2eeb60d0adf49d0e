#include "cost/cost_guard.h"

#include <fmt/format.h>

#include "cost/estimate_inputs.h"
#include "estimate/units.h"
#include "job/exit_codes.h"
#include "load/job_input.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::cost {

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
    if (auto refused = load::refuse_stdin("--profile", guard.profile); !refused) {
        return refused;
    }
    return load::refuse_stdin("--prices", guard.prices);
}

util::Result<std::optional<double>> check_cost_guard(const CostGuard& guard,
                                                     const manifest::JobSpec& spec,
                                                     bool runs_here) {
    if (guard.max_cost.empty()) {
        return std::optional<double>();
    }
    const double budget = estimate::parse_money(guard.max_cost).value_or(0);
    estimate::PlanFlags flags;
    flags.workers = {spec.replicas};
    flags.gpu = guard.gpu;
    flags.local = runs_here;
    auto report = build_report(spec, flags, estimate::Goal{estimate::Goal::Kind::budget, budget},
                               {guard.profile.empty() ? std::vector<std::string>()
                                                      : std::vector<std::string>{guard.profile},
                                guard.prices},
                               "--max-cost");
    if (!report) {
        return util::error(report.error(), k_exit_bad_input);
    }
    const estimate::SizeEstimate& size = report->estimate.sizes.front();
    if (report->choice) {
        return size.cost;
    }
    return util::error(
        fmt::format("--max-cost: the estimated cost of {} is {} ({} at {} per "
                    "replica-hour{}), more than the budget; nothing was submitted (got {})",
                    util::counted(size.replicas, "replica"),
                    estimate::format_money(size.cost.value_or(0)),
                    util::format_duration(size.total_s),
                    estimate::format_money(report->plan.input.price_per_replica_hour.value_or(0)),
                    report->plan.profile.measured ? "" : ", built-in profile", guard.max_cost),
        k_exit_bad_input);
}

}  // namespace kftrain::cost
