#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "cli/context.h"
#include "job/backend.h"
#include "job/wait_condition.h"

namespace kftrain::cli {

// How a wait runs once its flags are checked.
struct WaitPlan {
    job::WaitFor condition = job::WaitFor::Succeeded;
    double timeout_s = 0;  // 0: no limit
    double interval_s = 5;
};

// Poll a job until the plan's condition holds, printing each change of state; return 0 met,
// 1 the job failed, 3 not found, 4 cluster error, 5 timed out (at give_up_at when given, else
// the plan's timeout from now).
int wait_for_job(job::Backend& backend, const std::string& job, const WaitPlan& plan, Context& ctx,
                 std::optional<std::chrono::steady_clock::time_point> give_up_at = std::nullopt);

}  // namespace kftrain::cli
