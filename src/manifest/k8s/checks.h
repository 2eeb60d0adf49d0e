#pragma once

#include <string>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::manifest {

// Check the names and values a job puts in its manifest against Kubernetes' own rules
// (k8s_rules.h): label, annotation and node selector keys and values, tolerations, the
// Secrets, claims, ConfigMaps and priority classes it names, and the image. The message
// names the job-file key, the value and the rule: labels."-bad/key": the key must be ...
util::Status check_kubernetes_rules(const JobSpec& spec);

// Locate a key of a job-file map for messages, as SourceMap::locate does, quoting a key
// that is not a plain word: ("labels", "app.kubernetes.io/name") ->
// job.yaml:4: labels."app.kubernetes.io/name".
std::string locate_map_key(const SourceMap& source, const std::string& map, const std::string& key);

}  // namespace kftrain::manifest
