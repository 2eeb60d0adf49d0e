#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "cli/job_status.h"
#include "cli/kube_events.h"

namespace kftrain::cli {

// Format `describe`: the wide status (with its diagnosis), every condition
// of the job from its JSON, and the events of the job and its pods, newest last.
std::string format_describe(const JobStatus& status, const std::string& job_json,
                            const std::vector<KubeEvent>& events, std::time_t now);

}  // namespace kftrain::cli
