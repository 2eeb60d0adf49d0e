#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "job/backend.h"
#include "job/context.h"
#include "job/search/search_backend.h"

namespace kftrain::backend {

// Return whether a verb runs on this machine: --local, the job file's backend key "local", or
// no cluster configured (saying so on err). Jobs and searches choose alike.
bool use_local_backend(job::Context& ctx, const std::string& job_backend);

// Choose the backend for a verb: --local, or the job file's backend, or the cluster
// (kubectl in namespace ns, "" for kubectl's own); job_backend is the job file's "backend"
// key ("" when none is known). With give_up_at, no cluster call runs past it.
std::unique_ptr<job::Backend> make_backend(
    job::Context& ctx, const std::string& job_backend, const std::string& ns,
    std::optional<std::chrono::steady_clock::time_point> give_up_at = std::nullopt);

// Choose the backend of a `tune` verb as make_backend chooses a job's: --local, the job
// file's backend key, else the cluster (kubectl in namespace ns, no call past give_up_at).
std::unique_ptr<job::search::SearchBackend> make_search_backend(
    job::Context& ctx, const std::string& job_backend, const std::string& ns,
    std::optional<std::chrono::steady_clock::time_point> give_up_at = std::nullopt);

}  // namespace kftrain::backend
