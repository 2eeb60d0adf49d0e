#include "estimate/report.h"

#include "estimate/choice.h"
#include "estimate/units.h"

namespace kftrain::estimate {

Report make_report(const std::string& job_name, const Plan& plan, const std::optional<Goal>& goal) {
    Report r;
    r.job_name = job_name;
    r.plan = plan;
    r.estimate = estimate(plan.input);
    r.goal = goal;
    if (goal) {
        r.choice = goal->kind == Goal::Kind::deadline
                       ? cheapest_within_deadline(r.estimate, goal->limit)
                       : fastest_within_budget(r.estimate, goal->limit);
    }
    return r;
}

std::string describe_goal(const Goal& goal) {
    return goal.kind == Goal::Kind::deadline ? "deadline " + format_duration(goal.limit)
                                             : "budget " + format_money(goal.limit);
}

}  // namespace kftrain::estimate
