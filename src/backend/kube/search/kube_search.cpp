#include "backend/kube/search/kube_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>

#include "backend/kube/code_config_map.h"
#include "backend/kube/kubectl.h"
#include "backend/kube/kubectl_errors.h"
#include "backend/kube/kueue/kueue.h"
#include "backend/kube/queries.h"
#include "backend/kube/search/experiment_reader.h"
#include "cost/estimate_inputs.h"
#include "job/exit_codes.h"
#include "manifest/yaml/emit.h"
#include "search/search_cost.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

using backend::kube::KubectlFailure;
using backend::kube::KubectlResult;

constexpr const char* k_experiments = "experiments.kubeflow.org";
constexpr const char* k_trials = "trials.kubeflow.org";
constexpr const char* k_experiment_api_version = "kubeflow.org/v1beta1";
constexpr const char* k_experiment_label = "katib.kubeflow.org/experiment";

constexpr const char* k_katib_missing =
    "Katib is not installed in this cluster (no experiments.kubeflow.org CRD): install Katib, "
    "or run the search on this machine with --local";
constexpr const char* k_rejected =
    "Katib's webhook or the API server rejected the Experiment; 'kftrain tune --dry-run' shows "
    "what was sent";

// A failed kubectl call about an Experiment: Katib missing or the Experiment refused get
// their own hints; otherwise as every cluster verb says it (code 3 for NotFound, else 4).
util::Error katib_failure(const KubectlResult& result, const std::string& action) {
    switch (backend::kube::classify_kubectl_error(result.err)) {
        case KubectlFailure::CrdMissing:
            return util::error(
                backend::kube::explain_kubectl_error(result.err, action, k_katib_missing),
                k_exit_cluster);
        case KubectlFailure::Rejected:
            return util::error(backend::kube::explain_kubectl_error(result.err, action, k_rejected),
                               k_exit_cluster);
        default:
            return backend::kube::kubectl_failure(result, action);
    }
}

// The hint for an apply that Katib refused as an edit of an Experiment of that name.
std::string already_there(const std::string& name) {
    return fmt::format(
        "an Experiment named {0} already exists and Katib lets only its trial counts change: "
        "delete it with 'kftrain tune delete {0}' or choose another --name",
        name);
}

// The scalar at metadata.key of a YAML document, without creating or throwing; "" when
// it is not there.
std::string metadata_string(const YAML::Node& document, const char* key) {
    if (!document.IsMap()) {
        return "";
    }
    const YAML::Node metadata = document["metadata"];
    if (!metadata.IsMap()) {
        return "";
    }
    const YAML::Node value = metadata[key];
    return value.IsScalar() ? value.Scalar() : "";
}

// The index a --trial names ("3"), or 0 when it is a name.
int trial_index(const std::string& trial) {
    if (trial.empty() || trial.size() > 9 ||
        !std::all_of(trial.begin(), trial.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; })) {
        return 0;
    }
    return std::stoi(trial);
}

// Searches on a cluster with Katib: an Experiment wraps the job, Katib creates a Trial per
// suggestion and the Trial its job (named after the trial).
class KubeSearch : public job::SearchBackend {
  public:
    KubeSearch(const job::BackendOptions& global, std::string ns,
               std::optional<cost::Pricing> pricing,
               std::optional<backend::kube::Clock::time_point> give_up_at)
        : m_kubectl(backend::kube::make_kubectl_runner(global, give_up_at)),
          m_queries(*m_kubectl, ns),
          m_namespace(std::move(ns)),
          m_pricing(std::move(pricing)) {}

    bool on_this_machine() const override { return false; }

    util::Result<std::vector<std::string>> names() override {
        return backend::kube::object_names(m_queries, k_experiments);
    }

    util::Result<int> start(const job::SearchRequest& request, job::Reporter& report) override {
        if (request.replace) {
            return util::error(
                "--replace: only for a search on this machine (--local); on a "
                "cluster, delete the Experiment first (kftrain tune delete NAME)",
                k_exit_bad_input);
        }
        if (!request.env_from_shell.empty()) {
            return util::error(fmt::format("--env-from-shell: only for a search on this machine "
                                           "(--local); on a cluster a trial takes a Secret "
                                           "through secretKeyRef (got {})",
                                           request.env_from_shell.front()),
                               k_exit_bad_input);
        }
        const std::string name = metadata_string(request.experiment, "name");
        const std::string ns = namespace_of(request);
        if (!request.job.queue.empty()) {  // each trial's job waits in it: Kueue must be there
            auto queue = backend::kube::check_local_queue(m_queries, ns, request.job.queue,
                                                          request.job.source.locate("queue"));
            if (!queue) {
                return util::error(queue.error(), queue.error_code(k_exit_cluster));
            }
        }
        if (auto applied = apply_experiment(request, name, ns); !applied) {
            return util::error(applied.error(), applied.error_code(k_exit_cluster));
        }
        // A server-side apply says "serverside-applied" whether or not it created anything.
        report.out << fmt::format("experiment.kubeflow.org/{} {}\n", name,
                                  request.dry_run == job::DryRun::Server
                                      ? "accepted by the server (dry run: nothing created)"
                                      : "submitted");
        if (request.dry_run != job::DryRun::Server) {
            report.out << fmt::format("See its trials with 'kftrain tune status {}{}'\n", name,
                                      ns.empty() ? "" : " -n " + ns);
        }
        return k_exit_ok;
    }

    util::Result<kftrain::tune::SearchStatus> status(const std::string& name) override {
        auto search = read(name);
        if (!search) {
            return search.error_value();
        }
        return std::move(search->status);
    }

    util::Result<std::string> trial_job(const std::string& name,
                                        const std::string& trial) override {
        auto search = read(name);
        if (!search) {
            return search.error_value();
        }
        const auto& trials = search->status.trials;
        const int index = trial_index(trial);
        for (size_t i = 0; i < trials.size(); ++i) {
            if (trials[i].index == index || trials[i].name == trial) {
                return search->trial_jobs[i].name;
            }
        }
        if (trials.empty()) {
            return util::error(
                fmt::format("--trial: experiment {} has no trials yet (got {})", name, trial),
                k_exit_not_found);
        }
        return util::error(
            fmt::format("--trial: experiment {} has no trial {} (its trials are 1 to {}, or a "
                        "trial's name such as {})",
                        name, trial, trials.size(), trials.front().name),
            k_exit_not_found);
    }

    util::Result<std::string> remove(const std::string& name) override {
        auto result = m_queries.call(named({"delete", k_experiments, "--wait=false"}, name), false);
        if (!result) {
            return result.error_value();
        }
        if (!result->ok()) {
            return failure(*result, "deleting experiment/" + name, name);
        }
        // Its trials' code goes with it: a start interrupted before the Experiment owned the
        // ConfigMap leaves it to this.
        if (auto removed =
                backend::kube::delete_code(m_queries, {name, manifest::CodeOwnerKind::search});
            !removed) {
            return removed.error_value();
        }
        return fmt::format(
            "experiment.kubeflow.org/{} deleted; Katib deletes its trials and their jobs", name);
    }

  private:
    // Apply the code's ConfigMap (every trial's job mounts it), then the Experiment, then make
    // the Experiment the ConfigMap's owner. A refused Experiment leaves no ConfigMap it
    // created.
    util::Status apply_experiment(const job::SearchRequest& request, const std::string& name,
                                  const std::string& ns) {
        const bool server_dry_run = request.dry_run == job::DryRun::Server;
        const auto args = backend::kube::server_side_apply_args(ns, server_dry_run);
        auto code = backend::kube::create_code(m_queries, request.code_config_map, server_dry_run);
        if (!code) {
            return code.error_value();
        }
        auto result = m_queries.call(args, false, manifest::to_yaml(request.experiment));
        if (!result || !result->ok()) {
            backend::kube::remove_code(m_queries, *code);
        }
        if (!result) {
            return result.error_value();
        }
        if (!result->ok()) {
            const std::string action = "submitting experiment/" + name;
            util::Error failure = katib_failure(*result, action);
            if (result->err.find("are editable") != std::string::npos) {
                failure.message =
                    backend::kube::explain_kubectl_error(result->err, action, already_there(name));
            }
            return util::error(failure.message, k_exit_cluster);
        }
        if (!server_dry_run) {
            const backend::kube::Owner owner{k_experiments, k_experiment_api_version, "Experiment",
                                             name};
            if (auto owned = backend::kube::own_code(m_queries, *code, owner); !owned) {
                return util::error(
                    fmt::format("experiment/{} submitted, but {}: kftrain tune delete removes "
                                "the code with it all the same",
                                name, owned.error()),
                    k_exit_cluster);
            }
        }
        return util::ok_status();
    }

    // The namespace the Experiment goes to: its own, else the job's, else the backend's.
    std::string namespace_of(const job::SearchRequest& request) const {
        std::string ns = metadata_string(request.experiment, "namespace");
        if (ns.empty()) {
            ns = request.job.namespace_;
        }
        return ns.empty() ? m_namespace : ns;
    }

    // args, the namespace, then the name after "--", so no name is read as a flag.
    std::vector<std::string> named(std::vector<std::string> args, const std::string& name) const {
        auto ns = m_queries.namespace_args();
        args.insert(args.end(), ns.begin(), ns.end());
        args.insert(args.end(), {"--", name});
        return args;
    }

    util::Error failure(const KubectlResult& result, const std::string& action,
                        const std::string& name) const {
        if (backend::kube::classify_kubectl_error(result.err) == KubectlFailure::NotFound) {
            return util::error(fmt::format("no Experiment named {} in {} (hint: check the name "
                                           "and the namespace (-n))",
                                           name, m_queries.namespace_text()),
                               k_exit_not_found);
        }
        return katib_failure(result, action);
    }

    // The Experiment, its Trials, and what each trial has cost.
    util::Result<ClusterSearch> read(const std::string& name) {
        const std::string action = "reading experiment/" + name;
        auto experiment = m_queries.call(named({"get", k_experiments, "-o", "json"}, name), false);
        if (!experiment) {
            return experiment.error_value();
        }
        if (!experiment->ok()) {
            return failure(*experiment, action, name);
        }
        auto trials = m_queries.call(
            {"get", k_trials, "-l", std::string(k_experiment_label) + "=" + name, "-o", "json"});
        if (!trials) {
            return trials.error_value();
        }
        if (!trials->ok()) {
            return katib_failure(*trials, "reading the trials of experiment/" + name);
        }
        auto search = read_cluster_search(experiment->out, trials->out);
        if (!search) {
            return util::error(fmt::format("{}: {}", action, search.error()), k_exit_cluster);
        }
        if (const cost::Pricing* pricing = this->pricing()) {
            search::price_search(search->status, search->trial_jobs, search->template_job, *pricing,
                                 std::time(nullptr));
        }
        return search;
    }

    // The prices: as given, else the default catalog; null when that cannot be read.
    const cost::Pricing* pricing() {
        if (!m_pricing && !m_pricing_tried) {
            m_pricing_tried = true;
            auto loaded = cost::load_pricing("", "");
            if (loaded) {
                m_pricing = std::move(*loaded);
            }
        }
        return m_pricing ? &*m_pricing : nullptr;
    }

    std::unique_ptr<backend::kube::KubectlRunner> m_kubectl;
    backend::kube::KubeQueries m_queries;
    std::string m_namespace;
    std::optional<cost::Pricing> m_pricing;
    bool m_pricing_tried = false;
};

}  // namespace

std::unique_ptr<job::SearchBackend> make_kube_search(
    const job::BackendOptions& global, const std::string& ns, std::optional<cost::Pricing> pricing,
    std::optional<backend::kube::Clock::time_point> give_up_at) {
    return std::make_unique<KubeSearch>(global, ns, std::move(pricing), give_up_at);
}

}  // namespace kftrain::backend::kube
