#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/job/status.h"

namespace kftrain::cli::job {

// What `wait --for` waits for.
enum class WaitFor { Created, Running, Succeeded, Suspended };

// Return the conditions --for takes, in the order help lists them: succeeded, running,
// created, suspended (what shell completion offers).
std::vector<std::string> wait_for_names();

// Parse --for ("created", "running", "succeeded", "suspended"); nullopt otherwise.
std::optional<WaitFor> parse_wait_for(const std::string& text);

// Where a wait stands after a look at the job.
enum class WaitVerdict { Pending, Met, Failed, Unreachable };

// Judge a phase against the condition: Met, Failed (the job failed: exit 1),
// Unreachable (it ended another way and can no longer meet it), or Pending.
WaitVerdict judge_wait(WaitFor condition, JobPhase phase);

}  // namespace kftrain::cli::job
