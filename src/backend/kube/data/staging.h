#pragma once

#include <chrono>
#include <string>

#include "job/claim.h"
#include "job/context.h"
#include "job/reporter.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// Each of these checks the claim, starts a helper pod that mounts it (read-only for get and
// ls), waits for it to be Ready, copies or lists with tar, find and stat run in it by
// `kubectl exec`, and deletes the pod whatever happens, Ctrl-C included. Errors carry their
// exit code: 3 for a missing claim or path, 4 for a claim held elsewhere or a failed copy, 5
// when the pod is not Ready in time, 130 on Ctrl-C.

// Copy the contents of local_dir into the claim's path, showing progress on report.notes.
util::Status put_to_claim(const job::BackendOptions& global, const job::ClaimTarget& target,
                          const std::string& local_dir, job::Reporter& report);

// Copy the contents of the claim's path into out_dir (made when missing), as staging::TreeSink
// lays them down: no setuid, devices or links, nothing outside out_dir; existing files are
// replaced only with force (otherwise exit 2 before anything is copied).
util::Status get_from_claim(const job::BackendOptions& global, const job::ClaimTarget& target,
                            const std::string& out_dir, bool force, job::Reporter& report);

// List what is under the claim's path.
util::Result<job::Listing> list_claim(const job::BackendOptions& global,
                                      const job::ClaimTarget& target, job::Reporter& report);

}  // namespace kftrain::backend::kube
