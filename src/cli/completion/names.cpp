#include "cli/completion/names.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <sstream>

#include "backend/select.h"
#include "cost/estimate_inputs.h"
#include "job/names.h"
#include "load/job_input.h"
#include "util/text.h"

namespace kftrain::cli::completion {
namespace {

// Return what list gives with a context on the global flags whose output goes nowhere
// (notes and errors are not for the shell); nothing when the flags are refused or on any
// error.
std::vector<Candidate> quietly(const GlobalOptions& global,
                               const std::function<std::vector<Candidate>(Context&)>& list) {
    std::ostringstream quiet;
    Context ctx{quiet, quiet, global, 0};
    if (!check_global_options(global)) {
        return {};
    }
    try {
        return list(ctx);
    } catch (const std::exception&) {
        return {};
    }
}

// Return the names list gives, each described as what; nothing on any error.
std::vector<Candidate> described(const util::Result<std::vector<std::string>>& names,
                                 const std::string& what) {
    std::vector<Candidate> candidates;
    if (names) {
        for (const auto& name : *names) {
            candidates.push_back({name, what});
        }
    }
    return candidates;
}

// The replica types of a job's replicas with their counts (master, worker), then each
// replica with its state (master-0, worker-2).
std::vector<Candidate> replica_candidates(const std::vector<job::ReplicaStatus>& replicas) {
    std::vector<std::pair<std::string, int>> types;  // as met, with their counts
    std::vector<Candidate> named;
    for (const auto& replica : replicas) {
        auto known = std::find_if(types.begin(), types.end(),
                                  [&](const auto& type) { return type.first == replica.type; });
        if (known == types.end()) {
            types.emplace_back(replica.type, 1);
        } else {
            known->second += 1;
        }
        if (replica.name != util::to_lower(replica.type)) {  // dataset-initializer: a step
            named.push_back({replica.name, replica.state});
        }
    }
    std::vector<Candidate> names;
    for (const auto& [type, count] : types) {
        names.push_back({util::to_lower(type),
                         fmt::format("{}: {} replica{}", type, count, count == 1 ? "" : "s")});
    }
    names.insert(names.end(), named.begin(), named.end());
    return names;
}

// Return the replicas of a job (replica_candidates), asking no later than give_up_at.
std::vector<Candidate> job_replicas(Context& ctx, const std::string& job,
                                    std::chrono::steady_clock::time_point give_up_at) {
    if (!job::check_object_name("job name", job)) {
        return {};
    }
    auto backend = backend::make_backend(ctx, "", ctx.global.namespace_, give_up_at);
    auto status = backend->status_without_progress(job);
    return status ? replica_candidates(status->replicas) : std::vector<Candidate>{};
}

}  // namespace

std::vector<Candidate> job_names(const GlobalOptions& global, std::chrono::milliseconds deadline) {
    return quietly(global, [&](Context& ctx) -> std::vector<Candidate> {
        auto backend = backend::make_backend(ctx, "", global.namespace_,
                                             std::chrono::steady_clock::now() + deadline);
        auto jobs = backend->list(false);
        if (!jobs) {
            return {};
        }
        std::vector<Candidate> names;
        for (const auto& job : *jobs) {
            names.push_back({job.name, job.kind + " " + job::phase_name(job.phase)});
        }
        return names;
    });
}

std::vector<Candidate> replica_names(const GlobalOptions& global, const std::string& job,
                                     std::chrono::milliseconds deadline) {
    return quietly(global, [&](Context& ctx) {
        return job_replicas(ctx, job, std::chrono::steady_clock::now() + deadline);
    });
}

std::vector<Candidate> trial_replica_names(const GlobalOptions& global, const std::string& search,
                                           const std::string& trial,
                                           std::chrono::milliseconds deadline) {
    if (trial.empty() || !job::check_object_name("search name", search)) {
        return {};
    }
    return quietly(global, [&](Context& ctx) {
        const auto give_up_at = std::chrono::steady_clock::now() + deadline;  // for both lookups
        auto job = backend::make_search_backend(ctx, "", ctx.global.namespace_, give_up_at)
                       ->trial_job(search, trial);
        return job ? job_replicas(ctx, *job, give_up_at) : std::vector<Candidate>{};
    });
}

std::vector<Candidate> search_names(const GlobalOptions& global,
                                    std::chrono::milliseconds deadline) {
    return quietly(global, [&](Context& ctx) {
        auto searches = backend::make_search_backend(ctx, "", global.namespace_,
                                                     std::chrono::steady_clock::now() + deadline);
        return described(searches->names(), "search");
    });
}

std::vector<Candidate> trial_names(const GlobalOptions& global, const std::string& search,
                                   std::chrono::milliseconds deadline) {
    if (!job::check_object_name("search name", search)) {
        return {};
    }
    return quietly(global, [&](Context& ctx) -> std::vector<Candidate> {
        auto status = backend::make_search_backend(ctx, "", global.namespace_,
                                                   std::chrono::steady_clock::now() + deadline)
                          ->status(search);
        if (!status) {
            return {};
        }
        std::vector<Candidate> numbers;
        std::vector<Candidate> names;
        for (const auto& trial : status->trials) {
            const std::string state = kftrain::tune::trial_state_name(trial.state);
            numbers.push_back({std::to_string(trial.index), trial.name + " " + state});
            names.push_back({trial.name, fmt::format("trial {} {}", trial.index, state)});
        }
        numbers.insert(numbers.end(), names.begin(), names.end());
        return numbers;
    });
}

std::vector<Candidate> claim_names(const GlobalOptions& global, const std::string& job_file,
                                   std::chrono::milliseconds deadline) {
    return quietly(global, [&](Context& ctx) {
        std::vector<manifest::Volume> volumes;
        std::string job_backend;
        if (!job_file.empty() && job_file != "-") {  // never read the shell's standard input
            load::JobInput input;
            input.file = job_file;
            if (auto spec = load::load_job(input, global)) {
                volumes = spec->volumes;
                job_backend = spec->backend;
            }
        }
        auto backend = backend::make_backend(ctx, job_backend, global.namespace_,
                                             std::chrono::steady_clock::now() + deadline);
        return described(backend->claim_names(volumes), "PersistentVolumeClaim");
    });
}

std::vector<Candidate> gpu_types(const std::string& prices) {
    try {
        auto pricing = cost::load_pricing(prices, "");
        if (!pricing) {
            return {};
        }
        std::vector<Candidate> types;
        for (const auto& gpu : pricing->catalog.gpus) {
            types.push_back({gpu.first, "GPU"});
        }
        return types;
    } catch (const std::exception&) {
        return {};
    }
}

std::vector<Candidate> queue_names(const GlobalOptions& global,
                                   std::chrono::milliseconds deadline) {
    return quietly(global, [&](Context& ctx) {
        auto backend = backend::make_backend(ctx, "", global.namespace_,
                                             std::chrono::steady_clock::now() + deadline);
        auto listed = backend->queues();
        std::vector<Candidate> names;
        if (listed) {
            for (const auto& queue : listed->queues) {
                names.push_back({queue.name, "queue"});
            }
        }
        return names;
    });
}

}  // namespace kftrain::cli::completion
