#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "backend/history_backend.h"
#include "cost/measurement.h"
#include "estimate/program/profile.h"
#include "job/backend.h"
#include "job/context.h"
#include "job/search_backend.h"
#include "util/result.h"

namespace kftrain::backend {

// Return whether a verb runs on this machine: the job asks for it (job::asks_local), or no
// cluster is configured (saying so on err). Jobs and searches choose alike.
bool use_local_backend(job::Context& ctx, const std::string& job_backend);

// Choose the backend for a verb: --local, or the job file's backend, or the cluster
// (kubectl in namespace ns, "" for kubectl's own); job_backend is the job file's "backend"
// key ("" when none is known). With give_up_at, no cluster call runs past it.
std::unique_ptr<job::Backend> make_backend(
    job::Context& ctx, const std::string& job_backend, const std::string& ns,
    std::optional<std::chrono::steady_clock::time_point> give_up_at = std::nullopt);

// Keep the record of a finished cluster job now (`kftrain archive`): exit 2 for a local job
// (its state is kept already), 1 when the job has not finished, 3 when it does not exist.
util::Result<Archived> archive(job::Context& ctx, const std::string& ns, const std::string& job);

// Choose the backend of a `tune` verb as make_backend chooses a job's: --local, the job
// file's backend key, else the cluster (kubectl in namespace ns, no call past give_up_at).
std::unique_ptr<job::SearchBackend> make_search_backend(
    job::Context& ctx, const std::string& job_backend, const std::string& ns,
    std::optional<std::chrono::steady_clock::time_point> give_up_at = std::nullopt);

// Measure a job's own program at several sizes (`estimate --measure`): here, or with on_cluster
// as short jobs on the cluster's nodes; progress and what it waits for on err. Errors carry
// their exit code (backend/local/measure/program_measure.h, backend/kube/measure/).
util::Result<estimate::ProgramProfile> measure(const job::BackendOptions& global,
                                               const cost::MeasureRequest& request, bool on_cluster,
                                               std::ostream& err);

// Where the records of history are read (history, cost): the kubeconfig context (--context,
// else kubectl's current one, else "": every context, where kubectl has none or cannot say)
// and, with want_namespace, the namespace (-n, else the context's, else "default").
struct HistoryScope {
    std::string context;
    std::string namespace_;
};
HistoryScope history_scope(const job::BackendOptions& global, bool want_namespace);

// Supervise a local job (the hidden `__supervise` verb that `submit --local` starts): in this
// process with foreground, else in a detached child that nobody waits for. Returns the exit code.
util::Result<int> supervise_local_job(const std::string& job, bool foreground);

}  // namespace kftrain::backend
