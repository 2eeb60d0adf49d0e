#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "cli/job/status.h"
#include "cli/kube/events.h"

namespace kftrain::cli::kube {

// Format `describe`: the wide status (with its diagnosis), every condition
// of the job from its JSON, and the events of the job and its pods, newest last.
std::string format_describe(const job::JobStatus& status, const std::string& job_json,
                            const std::vector<KubeEvent>& events, std::time_t now);

}  // namespace kftrain::cli::kube
