#include "cli/completion/names.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <sstream>

#include "cli/backend_select.h"
#include "cli/cost/estimate_inputs.h"
#include "cli/job/input.h"
#include "cli/job/names.h"
#include "cli/kube/kubectl.h"
#include "cli/kube/kueue/workload.h"
#include "cli/kube/queries.h"
#include "cli/local/queue/queue_members.h"
#include "cli/search/kube_search.h"
#include "cli/search/local_search.h"
#include "cli/search/search_store.h"
#include "util/text.h"

namespace kftrain::cli::completion {
namespace {

// The resource of Katib's Experiments, as kube_search asks kubectl for it.
constexpr const char* k_experiments = "experiments.kubeflow.org";
constexpr const char* k_claims = "persistentvolumeclaims";

// The names in `kubectl get -o name` output ("experiment.kubeflow.org/mnist-tune"), each
// described as what.
std::vector<Candidate> names_of_objects(const std::string& text, const std::string& what) {
    std::vector<Candidate> names;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        const size_t slash = line.rfind('/');
        if (slash != std::string::npos && slash + 1 < line.size()) {
            names.push_back({line.substr(slash + 1), what});
        }
    }
    return names;
}

// Return the names of the cluster's objects of resource (kubectl get RESOURCE -o name),
// described as what; nothing past deadline or when kubectl fails.
std::vector<Candidate> names_on_cluster(const GlobalOptions& global,
                                        std::chrono::milliseconds deadline, const char* resource,
                                        const std::string& what) {
    auto kubectl = kube::make_kubectl_runner(global, kube::Clock::now() + deadline);
    kube::KubeQueries queries(*kubectl, global.namespace_);
    auto listed = queries.call({"get", resource, "-o", "name"});
    if (!listed || !listed->ok()) {
        return {};
    }
    return names_of_objects(listed->out, what);
}

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

// Return here()'s names when the verb would run on this machine, else the names of the
// cluster's objects of resource (kubectl get RESOURCE -o name), described as what; nothing
// past deadline or on any error, and nothing printed (job_names).
std::vector<Candidate> names_here_or_on_cluster(const GlobalOptions& global,
                                                std::chrono::milliseconds deadline,
                                                const std::function<std::vector<Candidate>()>& here,
                                                const char* resource, const std::string& what) {
    return quietly(global, [&](Context& ctx) {
        return use_local_backend(ctx, "") ? here()
                                          : names_on_cluster(global, deadline, resource, what);
    });
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
                                    kube::Clock::time_point give_up_at) {
    if (!job::check_object_name("job name", job)) {
        return {};
    }
    auto backend = make_backend(ctx, "", ctx.global.namespace_, give_up_at);
    auto status = backend->status_without_progress(job);
    return status ? replica_candidates(status->replicas) : std::vector<Candidate>{};
}

// Return the backend of the `tune` verbs, asking the cluster no later than give_up_at.
std::unique_ptr<search::SearchBackend> search_backend(Context& ctx,
                                                      kube::Clock::time_point give_up_at) {
    if (use_local_backend(ctx, "")) {
        return search::make_local_search(ctx.err);
    }
    return search::make_kube_search(ctx.global, ctx.global.namespace_, std::nullopt, give_up_at);
}

}  // namespace

std::vector<Candidate> job_names(const GlobalOptions& global, std::chrono::milliseconds deadline) {
    return quietly(global, [&](Context& ctx) -> std::vector<Candidate> {
        auto backend = make_backend(ctx, "", global.namespace_, kube::Clock::now() + deadline);
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
        return job_replicas(ctx, job, kube::Clock::now() + deadline);
    });
}

std::vector<Candidate> trial_replica_names(const GlobalOptions& global, const std::string& search,
                                           const std::string& trial,
                                           std::chrono::milliseconds deadline) {
    if (trial.empty() || !job::check_object_name("search name", search)) {
        return {};
    }
    return quietly(global, [&](Context& ctx) {
        const auto give_up_at = kube::Clock::now() + deadline;  // for both lookups
        auto job = search_backend(ctx, give_up_at)->trial_job(search, trial);
        return job ? job_replicas(ctx, *job, give_up_at) : std::vector<Candidate>{};
    });
}

std::vector<Candidate> search_names(const GlobalOptions& global,
                                    std::chrono::milliseconds deadline) {
    auto here = [] {
        std::vector<Candidate> names;
        for (const auto& name : search::search_names()) {
            names.push_back({name, "search"});
        }
        return names;
    };
    return names_here_or_on_cluster(global, deadline, here, k_experiments, "search");
}

std::vector<Candidate> trial_names(const GlobalOptions& global, const std::string& search,
                                   std::chrono::milliseconds deadline) {
    if (!job::check_object_name("search name", search)) {
        return {};
    }
    return quietly(global, [&](Context& ctx) -> std::vector<Candidate> {
        auto status = search_backend(ctx, kube::Clock::now() + deadline)->status(search);
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
            job::JobInput input;
            input.file = job_file;
            if (auto spec = job::load_job(input, global)) {
                volumes = spec->volumes;
                job_backend = spec->backend;
            }
        }
        if (!use_local_backend(ctx, job_backend)) {
            return names_on_cluster(global, deadline, k_claims, "PersistentVolumeClaim");
        }
        std::vector<Candidate> claims;
        for (const auto& volume : volumes) {
            if (!volume.claim.empty()) {
                claims.push_back({volume.claim, "claim of volume " + volume.name});
            }
        }
        return claims;
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
    auto here = [] {
        std::vector<Candidate> names;
        for (const auto& queue : local::local_queues(local::read_queue_members())) {
            names.push_back({queue.name, "local queue"});
        }
        return names;
    };
    return names_here_or_on_cluster(global, deadline, here, kube::k_local_queue_resource,
                                    "LocalQueue");
}

}  // namespace kftrain::cli::completion
