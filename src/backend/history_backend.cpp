#include "backend/history_backend.h"

#include <fmt/format.h>

#include <ctime>
#include <optional>
#include <set>

#include "backend/kube/backend.h"
#include "backend/kube/history/replay.h"
#include "history/store.h"
#include "inspect/diagnosis_run.h"
#include "job/exit_codes.h"
#include "util/text.h"

namespace kftrain::backend {
namespace {

// A record as read, and the job it answers for.
struct ReadRecord {
    history::Record record;
    job::JobStatus status;
};

// Return whether a replica of a finished job still runs or waits to: its record would miss
// its last lines.
bool replicas_still_run(const job::JobStatus& status) {
    return std::any_of(status.replicas.begin(), status.replicas.end(), [](const auto& replica) {
        return replica.state == "Running" || replica.state == "Pending" ||
               replica.state == "Restarting";
    });
}

class HistoryBackend : public job::Backend {
  public:
    HistoryBackend(std::unique_ptr<kube::KubernetesBackendBase> cluster,
                   const job::BackendOptions& global, std::ostream& err)
        : m_cluster(std::move(cluster)), m_from_history(global.from_history), m_err(err) {}

    job::Capabilities capabilities() const override { return m_cluster->capabilities(); }

    util::Result<std::string> submit(const job::RenderedJob& job, const job::SubmitFlags& flags,
                                     job::Reporter& report) override {
        return m_cluster->submit(job, flags, report);
    }

    util::Result<std::string> remove(const std::string& job, bool wait) override {
        // A finished job is recorded before it goes: delete, and prune after it, keep it.
        // Its lookup is the delete's too: a job not found, or a cluster that does not answer,
        // is one error, not a second call.
        auto status = m_cluster->object_status(job);
        if (!status) {
            return status.error_value();
        }
        keep(*status);
        return m_cluster->remove(job, wait);
    }

    util::Status force_remove(const std::string& job) override {
        return m_cluster->force_remove(job);
    }
    util::Status set_suspended(const std::string& job, bool suspended) override {
        return m_cluster->set_suspended(job, suspended);
    }
    util::Status scale(const std::string& job, int workers) override {
        return m_cluster->scale(job, workers);
    }

    util::Result<job::JobStatus> status(const std::string& job) override {
        return read_status(job, true);
    }

    util::Result<job::JobStatus> status_without_progress(const std::string& job) override {
        return read_status(job, false);
    }

    std::optional<job::Progress> posted_progress(const std::string& job) override {
        return m_cluster->posted_progress(job);
    }

    std::vector<diagnose::EventEvidence> events(const job::JobStatus& status) override {
        if (status.recorded.empty()) {
            return m_cluster->events(status);
        }
        const ReadRecord* read = cached(status.name);
        return read == nullptr ? std::vector<diagnose::EventEvidence>{}
                               : kube::event_evidence(kube::record_events(read->record, status));
    }

    util::Result<std::string> kind_of(const std::string& job) override {
        if (!m_from_history) {
            auto kind = m_cluster->kind_of(job);
            if (kind || kind.error_code(0) != k_exit_not_found || !has_any_record(job)) {
                return kind;
            }
        }
        auto read = recorded(job);
        if (!read) {
            return read.error_value();
        }
        return (*read)->status.kind;
    }

    util::Result<std::vector<job::JobStatus>> list(bool all_namespaces) override {
        auto jobs = m_cluster->list(all_namespaces);
        // Jobs of other namespaces (-A) are read through this namespace's backend only by
        // name: they are recorded when a verb names them in theirs.
        if (jobs && !all_namespaces) {
            for (const auto& status : *jobs) {
                keep(status);
            }
        }
        return jobs;
    }

    util::Status logs(const std::string& job, const job::LogOptions& options,
                      const job::LogSink& sink) override {
        const bool known_recorded = options.known != nullptr && !options.known->recorded.empty();
        if (!m_from_history && !known_recorded) {
            auto done = m_cluster->logs(job, options, sink);
            if (done && options.follow) {
                // The followed job has ended (its follower reads it inside the kubernetes
                // backend): one look records it.
                (void)read_status(job, false);
            }
            if (done || done.error_code(0) != k_exit_not_found || !is_gone(job)) {
                return done;
            }
            // The job is gone: a follower that has not read its status says where this is from.
            if (options.follow) {
                if (auto read = recorded(job)) {
                    sink({job, notice_of(**read), true});
                }
            }
        }
        auto read = recorded(job);
        if (!read) {
            return read.error_value();
        }
        return kube::record_logs((*read)->record, (*read)->status, options, sink);
    }

    util::Result<job::JobDescription> describe(const std::string& job) override {
        if (!m_from_history) {
            auto described = m_cluster->describe(job);
            if (described && described->summary) {
                keep(*described->summary);
            }
            if (described || described.error_code(0) != k_exit_not_found || !has_any_record(job)) {
                return described;
            }
        }
        auto read = recorded(job);
        if (!read) {
            return read.error_value();
        }
        job::JobStatus status = (*read)->status;
        const std::time_t now = std::time(nullptr);
        status.why =
            inspect::why_line(*this, status, events(status), inspect::k_default_stuck_after_s, now);
        return kube::describe_record((*read)->record, status, now);
    }

    util::Result<std::vector<job::QueueEntry>> queue_entries(const std::string& queue) override {
        return m_cluster->queue_entries(queue);
    }
    util::Result<job::QueueList> queues() override { return m_cluster->queues(); }
    util::Result<std::vector<job::TrainingRuntime>> runtimes() override {
        return m_cluster->runtimes();
    }
    doctor::Report doctor(const job::DoctorRequest& request) override {
        return m_cluster->doctor(request);
    }
    util::Result<job::JobUsage> usage(const std::string& job) override {
        return m_cluster->usage(job);
    }
    util::Result<job::NodeUsageList> node_usage() override { return m_cluster->node_usage(); }
    util::Result<std::vector<std::string>> claim_names(
        const std::vector<manifest::Volume>& job_volumes) override {
        return m_cluster->claim_names(job_volumes);
    }
    util::Status put_data(const job::ClaimTarget& target, const std::string& local_dir,
                          job::Reporter& report) override {
        return m_cluster->put_data(target, local_dir, report);
    }
    util::Status get_data(const job::ClaimTarget& target, const std::string& out_dir, bool force,
                          job::Reporter& report) override {
        return m_cluster->get_data(target, out_dir, force, report);
    }
    util::Result<job::Listing> list_data(const job::ClaimTarget& target,
                                         job::Reporter& report) override {
        return m_cluster->list_data(target, report);
    }

  private:
    util::Result<job::JobStatus> read_status(const std::string& job, bool with_progress) {
        if (!m_from_history) {
            auto status =
                with_progress ? m_cluster->status(job) : m_cluster->status_without_progress(job);
            if (status) {
                keep(*status);
            }
            if (status || status.error_code(0) != k_exit_not_found) {
                return status;
            }
            if (!has_any_record(job)) {
                return status;
            }
        }
        auto read = recorded(job);
        if (!read) {
            return read.error_value();
        }
        return (*read)->status;
    }

    // Record a finished job the first time it is seen, partial while a replica still runs (a
    // worker may print its last lines after the master's success ended the job) and again,
    // once, when none does; what goes wrong is one warning.
    void keep(const job::JobStatus& status) {
        if (!job::is_finished(status.phase) || status.uid.empty() || !status.recorded.empty() ||
            m_kept.count(status.uid) > 0) {
            return;
        }
        const bool partial = replicas_still_run(status);
        m_kept.insert(status.uid);
        const history::RecordKey key{
            context(), status.namespace_.empty() ? namespace_name() : status.namespace_,
            status.name, status.uid};
        if (history::has_record(key, !partial)) {
            return;
        }
        auto record = m_cluster->gather_record(status.name);
        if (record) {
            record->summary.partial = partial;
        }
        util::Status written = util::ok_status();
        if (!record) {
            written = util::Status(record.error_value());
        } else if (auto kept = history::write_record(*record); !kept) {
            written = util::Status(kept.error_value());
        }
        if (!written) {
            m_err << "kftrain: warning: "
                  << util::escape_controls(fmt::format("could not keep the record of {}: {}",
                                                       status.name, written.error()))
                  << "\n";
        }
    }

    bool has_any_record(const std::string& job) {
        return history::newest_record(context(), namespace_name(), job).has_value();
    }

    // Whether the job is not on the cluster (a logs call may fail with 3 for a replica).
    bool is_gone(const std::string& job) {
        auto kind = m_cluster->kind_of(job);
        return !kind && kind.error_code(0) == k_exit_not_found && has_any_record(job);
    }

    // The newest record of a job, read once; without one, not found (callers that did not
    // force it find one first, and answer the cluster's own error where there is none).
    util::Result<const ReadRecord*> recorded(const std::string& job) {
        if (const ReadRecord* read = cached(job)) {
            return read;
        }
        auto path = history::newest_record(context(), namespace_name(), job);
        if (!path) {
            return util::error(
                fmt::format("no record of job {} in history (kftrain history lists them)", job),
                k_exit_not_found);
        }
        auto record = history::read_record(*path);
        if (!record) {
            return record.error_value();
        }
        job::JobStatus status = kube::status_from_record(*record);
        m_read = ReadRecord{std::move(*record), std::move(status)};
        return &*m_read;
    }

    const ReadRecord* cached(const std::string& job) const {
        return m_read && m_read->status.name == job ? &*m_read : nullptr;
    }

    std::string notice_of(const ReadRecord& read) const {
        return fmt::format(
            "no longer exists on the cluster; this is its record of {} (kftrain "
            "history)",
            read.status.recorded);
    }

    std::string context() {
        if (!m_context) {
            m_context = m_cluster->context_name();
        }
        return *m_context;
    }

    std::string namespace_name() {
        if (!m_namespace) {
            m_namespace = m_cluster->namespace_name();
        }
        return *m_namespace;
    }

    std::unique_ptr<kube::KubernetesBackendBase> m_cluster;
    bool m_from_history;
    std::ostream& m_err;
    std::set<std::string> m_kept;  // uids recorded (or found recorded) in this process
    std::optional<ReadRecord> m_read;
    std::optional<std::string> m_context;
    std::optional<std::string> m_namespace;
};

}  // namespace

std::unique_ptr<job::Backend> with_history(std::unique_ptr<kube::KubernetesBackendBase> cluster,
                                           const job::BackendOptions& global, std::ostream& err) {
    return std::make_unique<HistoryBackend>(std::move(cluster), global, err);
}

util::Result<Archived> archive_job(kube::KubernetesBackendBase& cluster, const std::string& job) {
    auto status = cluster.status_without_progress(job);
    if (!status) {
        return status.error_value();
    }
    if (!job::is_finished(status->phase)) {
        return util::error(fmt::format("{} has not finished ({}): a record is kept of a finished "
                                       "job only",
                                       job, job::phase_name(status->phase)),
                           k_exit_job_failed);
    }
    const std::string ns =
        status->namespace_.empty() ? cluster.namespace_name() : status->namespace_;
    const history::RecordKey key{cluster.context_name(), ns, status->name, status->uid};
    if (history::has_record(key)) {
        return Archived{history::record_path(key), true};
    }
    auto record = cluster.gather_record(job);
    if (!record) {
        return record.error_value();
    }
    auto written = history::write_record(*record);
    if (!written) {
        return written.error_value();
    }
    return Archived{history::record_path(key), *written == history::Written::AlreadyKept};
}

}  // namespace kftrain::backend
