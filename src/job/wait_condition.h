#pragma once

#include <optional>
#include <string>
#include <vector>

#include "job/status.h"

namespace kftrain::job {

// What `wait --for` waits for.
enum class WaitFor { Created, Running, Succeeded, Suspended, Admitted };

// Return the conditions --for takes, in the order help lists them: succeeded, running,
// created, suspended, admitted (what shell completion offers).
std::vector<std::string> wait_for_names();

// Parse --for ("created", "running", "succeeded", "suspended", "admitted"); nullopt otherwise.
std::optional<WaitFor> parse_wait_for(const std::string& text);

// Where a wait stands after a look at the job.
enum class WaitVerdict { Pending, Met, Failed, Unreachable };

// Judge a phase against the condition: Met, Failed (the job failed: exit 1),
// Unreachable (it ended another way and can no longer meet it), or Pending.
WaitVerdict judge_wait(WaitFor condition, JobPhase phase);

// Judge a look at the job against the condition: as by its phase, and for admitted by its
// queue too (admitted once its queue admits it, or at once when it waits in no queue).
WaitVerdict judge_wait(WaitFor condition, const JobStatus& status);

}  // namespace kftrain::job
