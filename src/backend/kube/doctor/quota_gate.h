#pragma once

// The namespace's ResourceQuotas and LimitRanges before a job is submitted
// (docs/shared-clusters.md): read once, judged by doctor's rules, so that a job they can never
// admit is refused before the operator creates half its pods.

#include <string>
#include <vector>

#include "backend/kube/queries.h"
#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// Return the quota's and LimitRanges' warnings for a job about to be submitted to namespace
// ns: a quota it fits only once others' pods end, one that could not be read; with a Kueue
// ClusterQueue (the job's LocalQueue's, "" for none), the same of its quota. A job one can
// never admit is an error with exit code 2 naming quota, resource, asked, used and hard, unless
// force, when it is a warning too.
util::Result<std::vector<std::string>> check_quotas(KubeQueries& queries,
                                                    const manifest::JobSpec& spec,
                                                    const std::string& ns,
                                                    const std::string& cluster_queue, bool force);

}  // namespace kftrain::backend::kube
