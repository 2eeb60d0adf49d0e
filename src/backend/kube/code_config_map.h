#pragma once

// The ConfigMap holding the folder a job ships (code, docs/code.md) on a cluster: created
// before the job, owned by it once it exists, removed with it.

#include <string>

#include "backend/kube/queries.h"
#include "job/input.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// What apply_code did, for a job submit that then fails.
struct CodeApplied {
    std::string name;      // the ConfigMap's; "" when the job ships no code
    bool created = false;  // it did not exist before
};

// Apply the job's code ConfigMap (with dry_run_server, only as a server-side dry run).
util::Result<CodeApplied> apply_code(KubeQueries& queries, const job::RenderedJob& job,
                                     bool dry_run_server);

// Make the job the ConfigMap's owner, so that the garbage collector removes it with the job.
util::Status own_code(KubeQueries& queries, const job::RenderedJob& job, const CodeApplied& code);

// Remove a ConfigMap apply_code created for a job that could not be submitted.
void remove_code(KubeQueries& queries, const CodeApplied& code);

// Delete the code ConfigMaps of a job (by their kftrain.io/code-of label), without waiting;
// an error names what kubectl said.
util::Status delete_code(KubeQueries& queries, const std::string& job_name);

}  // namespace kftrain::backend::kube
