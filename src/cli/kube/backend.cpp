#include <fmt/format.h>

#include <ctime>

#include "cli/job/backend.h"
#include "cli/exit_codes.h"
#include "cli/kube/describe.h"
#include "cli/kube/events.h"
#include "cli/kube/logs.h"
#include "cli/kube/pods.h"
#include "cli/kube/queries.h"
#include "cli/kube/status.h"
#include "manifest/yaml_emit.h"
#include "cli/kube/backend.h"
#include "cli/kube/follow.h"
#include "cli/kube/kubectl.h"
#include "cli/kube/kubectl_errors.h"

namespace kftrain::cli::kube {
namespace {

// The objects whose events explain a job: the job and its pods.
std::set<std::string> event_objects(const job::JobStatus& status) {
    std::set<std::string> objects = {status.name};
    for (const auto& replica : status.replicas) {
        objects.insert(replica.pod);
    }
    return objects;
}

// Jobs on a cluster with the Kubeflow Training Operator, through kubectl.
class KubernetesBackend : public job::Backend {
  public:
    KubernetesBackend(const GlobalOptions& global, std::string ns)
        : m_kubectl(make_kubectl_runner(global)), m_queries(*m_kubectl, ns) {}

    std::string name() const override { return "kubernetes"; }

    util::Result<std::string> submit(const job::RenderedJob& job, const job::SubmitFlags& flags) override {
        std::vector<std::string> args = {"apply", "-f", "-", "--namespace", job.spec.namespace_};
        bool server_dry_run = flags.dry_run == job::DryRun::Server;
        if (server_dry_run) {
            args.push_back("--dry-run=server");
        }
        auto result = m_kubectl->run(args, manifest::to_yaml(job.manifest));
        if (!result) {
            return util::error(result.error(), k_exit_cluster);
        }
        if (!result->ok()) {
            std::string action = fmt::format("submitting pytorchjob/{}", job.spec.name);
            return util::error(explain_kubectl_error(result->err, action), k_exit_cluster);
        }
        if (server_dry_run) {
            return fmt::format("pytorchjob/{} accepted by the server (dry run: nothing created)",
                               job.spec.name);
        }
        return fmt::format("pytorchjob/{} submitted", job.spec.name);
    }

    util::Result<job::JobStatus> status_without_progress(const std::string& job) override {
        auto text = m_queries.job_json(job);
        if (!text) {
            return text.error_value();
        }
        return read_full_status(job, *text);
    }

    util::Result<job::JobStatus> status(const std::string& job) override {
        auto status = status_without_progress(job);
        if (status) {
            add_progress(*status);
        }
        return status;
    }

    util::Result<std::vector<job::JobStatus>> list(bool all_namespaces) override {
        std::vector<std::string> args = {"get", "pytorchjobs", "-o", "json"};
        if (all_namespaces) {
            args.push_back("-A");
        }
        auto result = all_namespaces ? run_without_namespace(args)
                                     : m_queries.run(args, "listing pytorchjobs");
        if (!result) {
            return result.error_value();
        }
        auto jobs = parse_job_list(*result);
        if (!jobs) {
            return util::error("listing pytorchjobs: " + jobs.error(), k_exit_cluster);
        }
        return jobs;
    }

    util::Status logs(const std::string& job, const job::LogOptions& options,
                      const job::LogSink& sink) override {
        if (options.follow) {
            SnapshotSource source = [this, job]() -> util::Result<JobSnapshot> {
                auto status = status_without_progress(job);
                if (!status) {
                    return status.error_value();
                }
                return JobSnapshot{status->phase, status->replicas};
            };
            return follow_logs(*m_kubectl, source, options, m_queries.namespace_args(), sink);
        }
        auto status = this->status_without_progress(job);
        if (!status) {
            return status.error_value();
        }
        std::vector<job::ReplicaStatus> chosen;
        for (const auto& replica : status->replicas) {
            if (job::replica_matches(replica, options.replica)) {
                chosen.push_back(replica);
            }
        }
        if (chosen.empty()) {
            return no_replicas(job, options.replica, *status);
        }
        return fetch_logs(*m_kubectl, chosen, options, m_queries.namespace_args(), sink);
    }

    util::Status remove(const std::string& job, bool wait) override {
        auto result =
            m_queries.run({"delete", "pytorchjob", job, wait ? "--wait=true" : "--wait=false"},
                          "deleting pytorchjob/" + job);
        if (!result) {
            return result.error_value();
        }
        return util::ok_status();
    }

    util::Result<std::string> describe(const std::string& job) override {
        auto text = m_queries.job_json(job);
        if (!text) {
            return text.error_value();
        }
        std::vector<KubeEvent> events;
        auto status = read_full_status(job, *text, &events);
        if (!status) {
            return status.error_value();
        }
        add_progress(*status);
        return format_describe(*status, *text, events, std::time(nullptr));
    }

  private:
    // The job, its pods and, when a pod is stuck, the events that say why; with all_events,
    // the events are always read and handed back too (describe shows them).
    util::Result<job::JobStatus> read_full_status(const std::string& job, const std::string& text,
                                             std::vector<KubeEvent>* all_events = nullptr) {
        auto status = parse_job_status(text);
        if (!status) {
            return util::error(fmt::format("reading pytorchjob/{}: {}", job, status.error()),
                               k_exit_cluster);
        }
        auto pods = m_queries.pods(job, text);
        if (!pods) {
            return pods.error_value();
        }
        status->replicas = std::move(*pods);
        bool want_events = status->replicas.empty();
        for (const auto& replica : status->replicas) {
            want_events = want_events || needs_events(replica);
        }
        std::vector<KubeEvent> events;
        if (all_events != nullptr || (want_events && !job::is_finished(status->phase))) {
            events = m_queries.events(event_objects(*status));
        }
        status->diagnosis = diagnose(*status, events);
        if (all_events != nullptr) {
            *all_events = std::move(events);
        }
        return status;
    }

    void add_progress(job::JobStatus& status) {
        for (const auto& replica : status.replicas) {
            if (replica.type == "Master" && has_started(replica)) {
                status.progress = m_queries.progress(replica.pod);
                return;
            }
        }
    }

    util::Result<std::string> run_without_namespace(const std::vector<std::string>& args) {
        auto result = m_kubectl->run(args);
        if (!result) {
            return util::error(result.error(), k_exit_cluster);
        }
        if (!result->ok()) {
            return kubectl_failure(*result, "listing pytorchjobs");
        }
        return std::move(result->out);
    }

    util::Status no_replicas(const std::string& job, const std::string& wanted,
                             const job::JobStatus& status) {
        if (!wanted.empty()) {
            return util::error(fmt::format("--replica: no replica of {} is named {} (got {})", job,
                                           wanted, wanted),
                               k_exit_not_found);
        }
        std::string why = status.diagnosis.empty() ? "" : ": " + status.diagnosis.front();
        if (why.find("no pods yet") != std::string::npos) {
            why.clear();
        }
        return util::error(
            fmt::format("{} has no pods yet ({}){}", job, job::phase_name(status.phase), why),
            k_exit_not_found);
    }

    std::unique_ptr<KubectlRunner> m_kubectl;
    KubeQueries m_queries;
};

}  // namespace

std::unique_ptr<job::Backend> make_kubernetes_backend(const GlobalOptions& global,
                                                 const std::string& ns) {
    return std::make_unique<KubernetesBackend>(global, ns);
}

}  // namespace kftrain::cli::kube
