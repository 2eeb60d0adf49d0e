#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "estimate/model.h"
#include "estimate/plan.h"
#include "estimate/program/profile.h"

namespace kftrain::estimate {

// What the user asked the estimate to choose: the cheapest size within a deadline, or
// the fastest within a budget.
struct Goal {
    enum class Kind { deadline, budget };
    Kind kind = Kind::deadline;
    double limit = 0;  // seconds for a deadline, money for a budget
};

// An estimate ready to print: the job, the plan behind it, every size, and the choice.
struct Report {
    std::string job_name;
    Plan plan;
    Estimate estimate;
    std::optional<Goal> goal;
    std::optional<std::size_t> choice;  // index into estimate.sizes; unset when none fits
    // Set when a program's measurements (estimate --measure) gave the sizes, not the model
    // of kftrain-trainer's step: plan.input holds only the sizes, processes and price.
    std::optional<ProgramProfile> program;
    // The widest spread of the measurements behind it (range.h): its range and verdict.
    Steadiness steadiness;
};

// Make the choice the report's goal asks for, among its estimate's sizes.
void choose(Report& report);

// Run the model on a plan and make the choice the goal asks for.
Report make_report(const std::string& job_name, const Plan& plan, const std::optional<Goal>& goal);

// Say how to measure a steadier spread: longer, or again (a trainer's --benchmark and
// repeated --profile; a program's --measure-seconds).
std::string steadiness_advice(const Report& report);

// Describe the goal: "deadline 2h00m" or "budget $50.00".
std::string describe_goal(const Goal& goal);

// Say why no size meets the goal: "no size of 1, 2, 4 finishes within 2h00m; the fastest,
// 4 replicas, takes 3h10m".
std::string unmet_goal_message(const Report& report);

}  // namespace kftrain::estimate
