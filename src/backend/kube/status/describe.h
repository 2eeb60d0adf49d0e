#pragma once

#include <ctime>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/kube/status/events.h"
#include "job/description.h"

namespace kftrain::backend::kube {

// Return what `describe` shows after the wide status (which the view prints from
// JobDescription::summary): for a TrainJob its runtime, numNodes and jobsStatus; every condition
// of the job from its object; and the events of the job and its pods, newest last.
std::vector<job::DescribePart> describe_parts(const nlohmann::json& job,
                                              const std::vector<KubeEvent>& events,
                                              std::time_t now);

// Return what describe_parts shows as data (describe -o json|yaml): the status -o json
// document with the job's "conditions" as its object has them, "events" (newest last) and, for
// a TrainJob, "runtime", "numNodes" (null: the runtime's) and "jobsStatus".
nlohmann::json describe_data(const job::JobStatus& status, const nlohmann::json& job,
                             const std::vector<KubeEvent>& events, std::time_t now);

}  // namespace kftrain::backend::kube
