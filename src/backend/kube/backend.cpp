#include "backend/kube/backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "backend/kube/code_config_map.h"
#include "backend/kube/data/staging.h"
#include "backend/kube/doctor/cluster_doctor.h"
#include "backend/kube/follow.h"
#include "backend/kube/history/gather.h"
#include "backend/kube/job_lookup.h"
#include "backend/kube/job_reader.h"
#include "backend/kube/json_fields.h"
#include "backend/kube/kubectl.h"
#include "backend/kube/kubectl_errors.h"
#include "backend/kube/kueue/cluster_queues.h"
#include "backend/kube/kueue/kueue.h"
#include "backend/kube/kueue/workload.h"
#include "backend/kube/lifecycle_patch.h"
#include "backend/kube/logs.h"
#include "backend/kube/queries.h"
#include "backend/kube/runtimes.h"
#include "backend/kube/status/describe.h"
#include "backend/kube/status/events.h"
#include "backend/kube/status/pods.h"
#include "backend/kube/submit.h"
#include "backend/kube/usage/job_usage.h"
#include "backend/kube/usage/node_usage.h"
#include "inspect/diagnosis_run.h"
#include "job/backend.h"
#include "job/exit_codes.h"
#include "manifest/job_kind.h"
#include "progress/trainer_status.h"

namespace kftrain::backend::kube {
namespace {

// The objects whose events explain a job: the job (and a TrainJob's JobSet, of the same
// name), its child Jobs and its pods.
std::set<std::string> event_objects(const job::JobStatus& status) {
    std::set<std::string> objects = {status.name};
    for (const auto& replica : status.replicas) {
        objects.insert(replica.pod);
    }
    if (status.kind == manifest::kind_name(manifest::JobKind::TrainJob)) {
        // The JobSet's child Jobs ("<jobset>-<replicated job>-0"): the Job controller records
        // there the pods it could not create (FailedCreate: a quota refused them), so each step
        // of Trainer v2's runtimes is named whether or not one of its pods exists.
        for (const char* step : {"node", "launcher", "dataset-initializer", "model-initializer"}) {
            objects.insert(status.name + "-" + step + "-0");
        }
        for (const auto& replica : status.replicas) {
            objects.insert(status.name + "-" + replica.container + "-0");
        }
    }
    return objects;
}

// Jobs on a cluster with the Kubeflow Training Operator (PyTorchJobs) or Kubeflow Trainer v2
// (TrainJobs), through kubectl; each kind read by its JobReader.
class KubernetesBackend : public KubernetesBackendBase {
  public:
    KubernetesBackend(const job::BackendOptions& global, std::string ns,
                      std::optional<Clock::time_point> give_up_at)
        : m_global(global),
          m_kubectl(make_kubectl_runner(global, give_up_at)),
          m_queries(*m_kubectl, ns),
          m_lookup(m_queries) {
        m_global.namespace_ = ns;
    }

    job::Capabilities capabilities() const override { return job::Capabilities{}; }

    util::Result<std::string> submit(const job::RenderedJob& job, const job::SubmitFlags& flags,
                                     job::Reporter& report) override {
        return submit_job(m_queries, job, flags, report);
    }

    // One get of the TrainJob, past the lookup cache (KubeQueries::call keeps no state), so that
    // it may run beside logs().
    std::optional<job::Progress> posted_progress(const std::string& job) override {
        auto result = m_queries.call(
            {"get", manifest::kind_resource(manifest::JobKind::TrainJob), "-o", "json", "--", job});
        if (!result || !result->ok()) {
            return std::nullopt;
        }
        auto parsed = parse_json_object(result->out);
        if (!parsed) {
            return std::nullopt;
        }
        return progress::trainer_status_progress(
            member(member(*parsed, "status"), "trainerStatus"));
    }

    util::Result<std::string> kind_of(const std::string& job) override {
        auto kind = m_lookup.kind(job);
        if (!kind) {
            return kind.error_value();
        }
        return std::string(manifest::kind_name(*kind));
    }

    util::Result<job::JobStatus> status_without_progress(const std::string& job) override {
        auto found = m_lookup.find(job);
        if (!found) {
            return found.error_value();
        }
        return read_full_status(*found);
    }

    util::Result<job::JobStatus> status(const std::string& job) override {
        auto status = status_without_progress(job);
        if (status) {
            add_progress(*status);
        }
        return status;
    }

    util::Result<std::vector<job::JobStatus>> list(bool all_namespaces) override {
        auto items = m_lookup.list(all_namespaces);
        if (!items) {
            return items.error_value();
        }
        std::vector<job::JobStatus> jobs;
        for (const auto& item : *items) {
            auto kind = manifest::parse_kind(string_at(item, "kind"));
            if (kind) {
                jobs.push_back(job_reader(*kind).status_from(item));
            }
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
                return JobSnapshot{status->phase, status->replicas, lead_replica(*status)};
            };
            return follow_logs(*m_kubectl, job, source, options, m_queries.namespace_args(), sink);
        }
        std::optional<job::JobStatus> read_now;
        const job::JobStatus* status = options.known;
        if (status == nullptr) {
            auto found = this->status_without_progress(job);
            if (!found) {
                return found.error_value();
            }
            read_now = std::move(*found);
            status = &*read_now;
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
        if (options.previous) {
            auto restarted = previous_attempts(job, chosen, options.replica, sink);
            if (!restarted) {
                return restarted.error_value();
            }
            chosen = std::move(*restarted);
        }
        job::LogOptions read = options;
        if (auto note = job::bound_many_replicas(read, chosen.size()); !note.empty()) {
            sink({job, note, true});
        }
        return fetch_logs(*m_kubectl, chosen, status->pod_selector, read,
                          m_queries.namespace_args(), sink);
    }

    util::Result<std::string> remove(const std::string& job, bool wait) override {
        auto kind = m_lookup.kind(job);
        if (!kind) {
            return kind.error_value();
        }
        auto result =
            m_queries.run({"delete", manifest::kind_resource(*kind),
                           wait ? "--wait=true" : "--wait=false", "--", job},
                          fmt::format("deleting {}/{}", manifest::kind_short_name(*kind), job));
        if (!result) {
            return result.error_value();
        }
        // Its code goes with it: a submit interrupted before it made the job the owner leaves
        // one only this finds. Not an error when it fails (a role that may not delete
        // ConfigMaps, say): the garbage collector removes an owned one with the job.
        (void)delete_code(m_queries, {job, manifest::CodeOwnerKind::job});
        return std::string(manifest::kind_name(*kind));
    }

    util::Status force_remove(const std::string& job) override {
        return util::error(fmt::format("--force: only for local jobs (got --force for {} on the "
                                       "cluster; kubectl delete --force skips the grace period "
                                       "instead)",
                                       job),
                           k_exit_bad_input);
    }

    util::Status set_suspended(const std::string& job, bool suspended) override {
        auto found = m_lookup.find(job);
        if (!found) {
            return found.error_value();
        }
        // Kueue owns a queued job's suspend: it unsuspends a job whose Workload is admitted,
        // so the job's own flag would be undone. Deactivating the Workload evicts it (Kueue
        // suspends the job) and keeps it from being admitted until it is active again.
        auto workload = workload_of(m_queries, found->object);
        if (!workload) {
            return workload.error_value();
        }
        const char* action = suspended ? "suspending" : "resuming";
        const std::string what = fmt::format("{}/{}", manifest::kind_short_name(found->kind), job);
        if (!workload->empty()) {
            return patch(
                k_workload_resource, *workload, workload_active_patch(!suspended),
                fmt::format("{} {} through its Kueue Workload {}", action, what, *workload));
        }
        return patch(manifest::kind_resource(found->kind), job,
                     suspend_patch(found->kind, suspended), fmt::format("{} {}", action, what));
    }

    util::Status scale(const std::string& job, int workers) override {
        auto found = m_lookup.find(job);
        if (!found) {
            return found.error_value();
        }
        auto body = scale_patch(found->object, workers);
        if (!body) {
            return body.error_value();
        }
        return patch(manifest::kind_resource(found->kind), job, *body,
                     fmt::format("scaling {}/{}", manifest::kind_short_name(found->kind), job));
    }

    util::Result<std::vector<job::QueueEntry>> queue_entries(const std::string& queue) override {
        return list_queue(m_queries, queue);
    }

    util::Result<job::QueueList> queues() override {
        auto queues = list_local_queues(m_queries);
        if (!queues) {
            return queues.error_value();
        }
        job::QueueList list{std::move(*queues),
                            fmt::format("No LocalQueues in {}.", m_queries.namespace_text()),
                            {}};
        add_cluster_queue_quota(m_queries, list.queues, list.warnings);
        return list;
    }

    util::Result<std::vector<job::TrainingRuntime>> runtimes() override {
        return list_runtimes(m_queries);
    }

    doctor::Report doctor(const job::DoctorRequest& request) override {
        job::DoctorRequest asked = request;
        if (asked.namespace_.empty()) {
            asked.namespace_ = m_global.namespace_;
        }
        return cluster_doctor(m_global, asked);
    }

    util::Result<job::JobUsage> usage(const std::string& job) override {
        auto found = m_lookup.find(job);
        if (!found) {
            return found.error_value();
        }
        return read_job_usage(m_queries, *found);
    }

    util::Result<job::NodeUsageList> node_usage() override { return read_node_usage(m_queries); }

    util::Result<std::vector<std::string>> claim_names(
        const std::vector<manifest::Volume>& /*job_volumes*/) override {
        return object_names(m_queries, "persistentvolumeclaims");
    }

    util::Status put_data(const job::ClaimTarget& target, const std::string& local_dir,
                          job::Reporter& report) override {
        return put_to_claim(m_global, target, local_dir, report);
    }

    util::Status get_data(const job::ClaimTarget& target, const std::string& out_dir, bool force,
                          job::Reporter& report) override {
        return get_from_claim(m_global, target, out_dir, force, report);
    }

    util::Result<job::Listing> list_data(const job::ClaimTarget& target,
                                         job::Reporter& report) override {
        return list_claim(m_global, target, report);
    }

    std::vector<diagnose::EventEvidence> events(const job::JobStatus& status) override {
        return event_evidence(m_queries.events(event_objects(status), status.created));
    }

    util::Result<job::JobDescription> describe(const std::string& job) override {
        auto found = m_lookup.find(job);
        if (!found) {
            return found.error_value();
        }
        std::vector<KubeEvent> events;
        auto status = read_full_status(*found, &events);
        if (!status) {
            return status.error_value();
        }
        add_progress(*status);
        const std::time_t now = std::time(nullptr);
        status->why = inspect::why_line(*this, *status, event_evidence(events),
                                        inspect::k_default_stuck_after_s, now);
        return job::JobDescription{*status, describe_parts(found->object, events, now),
                                   describe_data(*status, found->object, events, now)};
    }

    std::string context_name() override {
        if (!m_context) {
            m_context = kube::context_name(m_queries, m_global.context);
        }
        return *m_context;
    }

    std::string namespace_name() override {
        return kube::namespace_name(m_queries, m_global.namespace_);
    }

    util::Result<job::JobStatus> object_status(const std::string& job) override {
        auto found = m_lookup.find(job);
        if (!found) {
            return found.error_value();
        }
        return job_reader(found->kind).status_from(found->object);
    }

    util::Result<history::Record> gather_record(const std::string& job) override {
        auto found = m_lookup.find(job);
        if (!found) {
            return found.error_value();
        }
        auto status = read_full_status(*found);
        if (!status) {
            return status.error_value();
        }
        return kube::gather_record(*this, m_queries, *m_kubectl, *status, context_name(),
                                   std::time(nullptr));
    }

  private:
    // Merge-patch the object name of resource with body; doing says what for an error
    // ("scaling pytorchjob/mnist").
    util::Status patch(const std::string& resource, const std::string& name,
                       const std::string& body, const std::string& doing) {
        auto result =
            m_queries.run({"patch", resource, "--type", "merge", "-p", body, "--", name}, doing);
        if (!result) {
            return result.error_value();
        }
        return util::ok_status();
    }

    // The job, its pods and, when a pod is stuck, the events that say why; with all_events,
    // the events are always read and handed back too (describe shows them).
    util::Result<job::JobStatus> read_full_status(const FoundJob& found,
                                                  std::vector<KubeEvent>* all_events = nullptr) {
        const JobReader& reader = job_reader(found.kind);
        job::JobStatus status = reader.status_from(found.object);
        auto pods = m_queries.pods(status.name, reader.pod_selectors(found.object));
        if (!pods) {
            return pods.error_value();
        }
        status.replicas = std::move(pods->replicas);
        status.pod_selector = std::move(pods->selector);
        reader.settle(status);
        status.queue = read_queue_status(m_queries, found.object);
        bool want_events = status.replicas.empty();
        for (const auto& replica : status.replicas) {
            want_events = want_events || needs_events(replica);
        }
        std::vector<KubeEvent> events;
        if (all_events != nullptr || (want_events && !job::is_finished(status.phase))) {
            events = m_queries.events(event_objects(status), status.created);
        }
        status.diagnosis = diagnose(status, events);
        for (const auto& replica : status.replicas) {
            if (!replica.odd_identity.empty()) {
                status.diagnosis.push_back(replica.odd_identity);
            }
        }
        if (all_events != nullptr) {
            *all_events = std::move(events);
        }
        return status;
    }

    // Rank 0's last progress line, unless the job's status already reports its progress.
    void add_progress(job::JobStatus& status) {
        if (status.progress) {
            return;
        }
        const std::string lead = lead_replica(status);
        for (const auto& replica : status.replicas) {
            if (replica.name == lead && has_started(replica)) {
                auto read = m_queries.progress(
                    replica.pod, replica.container.empty() ? "pytorch" : replica.container);
                if (read) {
                    status.progress = read->progress;
                    status.checkpoint = read->checkpoint;
                } else {
                    status.progress_unread = read.error();
                }
                return;
            }
        }
    }

    util::Status no_replicas(const std::string& job, const std::string& wanted,
                             const job::JobStatus& status) {
        if (!wanted.empty()) {
            std::vector<std::string> names;
            for (const auto& replica : status.replicas) {
                names.push_back(replica.name);
            }
            return util::error(job::no_replica_message(job, wanted, names), k_exit_not_found);
        }
        std::string why = status.diagnosis.empty() ? "" : ": " + status.diagnosis.front();
        if (why.find("no pods yet") != std::string::npos) {
            why.clear();
        }
        return util::error(
            fmt::format("{} has no pods yet ({}){}", job, job::phase_name(status.phase), why),
            k_exit_not_found);
    }

    job::BackendOptions m_global;  // the backend's namespace in it
    std::unique_ptr<KubectlRunner> m_kubectl;
    KubeQueries m_queries;
    JobLookup m_lookup;
    std::optional<std::string> m_context;  // context_name(), once read
};

}  // namespace

std::unique_ptr<KubernetesBackendBase> make_kubernetes_backend(
    const job::BackendOptions& global, const std::string& ns,
    std::optional<std::chrono::steady_clock::time_point> give_up_at) {
    return std::make_unique<KubernetesBackend>(global, ns, give_up_at);
}

}  // namespace kftrain::backend::kube
