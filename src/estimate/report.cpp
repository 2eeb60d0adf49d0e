#include "estimate/report.h"

#include <fmt/format.h>

#include <vector>

#include "estimate/choice.h"
#include "estimate/units.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::estimate {

Report make_report(const std::string& job_name, const Plan& plan, const std::optional<Goal>& goal) {
    Report r;
    r.job_name = job_name;
    r.plan = plan;
    r.estimate = estimate(plan.input);
    r.goal = goal;
    if (plan.profile.measured) {
        note_spread(r.steadiness, plan.input.compute_spread,
                    fmt::format("compute per step at world size {}", plan.profile.world_size));
    }
    for (const MeasuredStep& m : plan.input.measured_steps) {
        note_spread(r.steadiness, m.spread,
                    fmt::format("whole steps at world size {}", m.world_size));
    }
    choose(r);
    return r;
}

void choose(Report& r) {
    if (r.goal) {
        r.choice = r.goal->kind == Goal::Kind::deadline
                       ? cheapest_within_deadline(r.estimate, r.goal->limit)
                       : fastest_within_budget(r.estimate, r.goal->limit);
    }
}

std::string steadiness_advice(const Report& r) {
    if (r.program) {
        return "measure longer (--measure-seconds, e.g. twice as long) or measure again "
               "(--measure) when the machine is quieter";
    }
    return "measure longer (kftrain-trainer --benchmark with more steps: more blocks) or "
           "repeat it (three profiles, each given with --profile: their medians, their blocks "
           "together)";
}

std::string describe_goal(const Goal& goal) {
    return goal.kind == Goal::Kind::deadline ? "deadline " + util::format_duration(goal.limit)
                                             : "budget " + format_money(goal.limit);
}

std::string unmet_goal_message(const Report& report) {
    std::vector<int> replicas;
    for (const SizeEstimate& s : report.estimate.sizes) {
        replicas.push_back(s.replicas);
    }
    const std::string sizes = fmt::format("{}", fmt::join(replicas, ", "));
    if (!report.goal || report.estimate.sizes.empty()) {
        return "no size to choose from";
    }
    if (report.goal->kind == Goal::Kind::deadline) {
        const SizeEstimate& f = report.estimate.sizes[report.estimate.fastest];
        return fmt::format("no size of {} finishes within {}; the fastest, {}, takes {}", sizes,
                           util::format_duration(report.goal->limit),
                           util::counted(f.replicas, "replica"), util::format_duration(f.total_s));
    }
    const SizeEstimate& c = report.estimate.sizes[report.estimate.cheapest.value_or(0)];
    return fmt::format("no size of {} costs at most {}; the cheapest, {}, costs {}", sizes,
                       format_money(report.goal->limit), util::counted(c.replicas, "replica"),
                       c.cost ? format_money(*c.cost) : "an unknown amount");
}

}  // namespace kftrain::estimate
