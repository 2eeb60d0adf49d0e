#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "job/backend.h"
#include "job/context.h"
#include "util/result.h"

namespace kftrain::backend {
namespace kube {
class KubernetesBackendBase;
}  // namespace kube

// Wrap the kubernetes backend so that it keeps a record of every finished job it sees
// (docs/history.md) and answers from it once the job is gone:
// * status(), status_without_progress() and list() record a finished job with a uid that has
//   no record yet (one stat when it has), and remove() records a finished job before deleting
//   it; a record that cannot be kept is one warning on err, never an error of the verb;
// * where the job is not found (error code 3) and a record of it exists, status, describe,
//   events, logs and kind_of answer from the newest one (JobStatus::recorded says so); with
//   global.from_history they do whether or not the job lives, and without a record say so
//   (exit 3). Suspend, resume and scale of a recorded job stay not found.
std::unique_ptr<job::Backend> with_history(std::unique_ptr<kube::KubernetesBackendBase> cluster,
                                           const job::BackendOptions& global, std::ostream& err);

// Keep the record of a finished job now (`kftrain archive`): its path, and whether it was
// already kept. Exit 1 when the job has not finished, 3 when it does not exist.
struct Archived {
    std::string path;
    bool already = false;
};
util::Result<Archived> archive_job(kube::KubernetesBackendBase& cluster, const std::string& job);

}  // namespace kftrain::backend
