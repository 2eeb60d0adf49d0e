#pragma once

#include <chrono>
#include <string>

#include "job/context.h"
#include "job/data/claim_path.h"
#include "job/data/listing.h"

namespace kftrain::backend::kube {

// Each of these checks the claim, starts a helper pod that mounts it (read-only for get and
// ls), waits for it to be Ready, copies or lists with tar, find and stat run in it by
// `kubectl exec`, and deletes the pod whatever happens, Ctrl-C included. They print errors as
// "kftrain: error: ..." and return the exit code: 3 for a missing claim or path, 4 for a
// claim held elsewhere or a failed copy, 5 when the pod is not Ready in time, 130 on Ctrl-C.

// Copy the contents of local_dir into the claim's path, showing progress on err.
int put_to_claim(job::Context& ctx, const job::data::ClaimTarget& target,
                 const std::string& local_dir);

// Copy the contents of the claim's path into out_dir (made when missing), as job::data::TreeSink
// lays them down: no setuid, devices or links, nothing outside out_dir; existing files are replaced
// only with force (otherwise exit 2 before anything is copied).
int get_from_claim(job::Context& ctx, const job::data::ClaimTarget& target,
                   const std::string& out_dir, bool force);

// List what is under the claim's path.
int list_claim(job::Context& ctx, const job::data::ClaimTarget& target,
               const job::data::ListingPrinter& print);

}  // namespace kftrain::backend::kube
