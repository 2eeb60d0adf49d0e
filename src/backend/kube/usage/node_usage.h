#pragma once

#include "backend/kube/queries.h"
#include "job/usage.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// Read the nodes' allocatable and what their pods ask (`get nodes` and `get pods -A`, side by
// side); pods that cannot be listed leave allocated unknown, with a warning.
util::Result<job::NodeUsageList> read_node_usage(KubeQueries& queries);

}  // namespace kftrain::backend::kube
