#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "job/status.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// Read `kubectl get pytorchjob NAME -o json` into a JobStatus (no pods yet):
// the phase from the last true condition, replica counts, times, wanted
// replicas. Missing fields are left empty; only text that is not a JSON
// object is an error.
util::Result<job::JobStatus> parse_job_status(const std::string& json_text);

// Read a JobStatus from an already parsed PyTorchJob object.
job::JobStatus job_status_from(const nlohmann::json& job);

// Return the pod selectors the operator reported per replica type
// (status.replicaStatuses.<type>.selector, or labelSelector.matchLabels).
std::vector<std::string> status_selectors(const std::string& json_text);

// Return the pod selectors an already parsed PyTorchJob reports, as status_selectors does.
std::vector<std::string> status_selectors(const nlohmann::json& job);

}  // namespace kftrain::backend::kube
