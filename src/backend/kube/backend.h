#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "history/record.h"
#include "job/backend.h"
#include "job/context.h"

namespace kftrain::backend::kube {

// The kubernetes backend, with what keeping the records of its finished jobs asks of it
// (backend/history_backend.h wraps it).
class KubernetesBackendBase : public job::Backend {
  public:
    // Return the kubeconfig context the jobs are read in: --context, else kubectl's current
    // one ("" when it cannot be read).
    virtual std::string context_name() = 0;
    // Return the namespace the jobs are read in: -n, else the context's, else "default".
    virtual std::string namespace_name() = 0;
    // Gather the record of a finished job (backend/kube/history/gather.h), reading it again
    // with its pods (a status from list() has none); error code 3 when it is gone.
    virtual util::Result<history::Record> gather_record(const std::string& job) = 0;
    // Read a job's object alone into its status, without its pods (one get, which later calls
    // of this backend about the job reuse): what delete asks before it records a job.
    virtual util::Result<job::JobStatus> object_status(const std::string& job) = 0;
};

// Make the kubernetes backend (kubectl with the global flags, in namespace ns); with
// give_up_at, no kubectl call runs past it.
std::unique_ptr<KubernetesBackendBase> make_kubernetes_backend(
    const job::BackendOptions& global, const std::string& ns,
    std::optional<std::chrono::steady_clock::time_point> give_up_at = std::nullopt);

}  // namespace kftrain::backend::kube
