#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "backend/local/queue/local_queue.h"
#include "backend/local/state/job_state.h"
#include "job/backend.h"

namespace kftrain::backend::local {

// Runs jobs on this machine: each replica a process, under a detached
// supervisor (`kftrain __supervise NAME`) that records the job in its state
// directory (state_dir.h). Every verb reads that state.
class LocalBackend : public job::Backend {
  public:
    // Make the backend; notes go to err; kftrain is the binary that supervises
    // (default: the running one).
    LocalBackend(std::ostream& err, std::string kftrain = "");

    job::Capabilities capabilities() const override;
    // This machine has no quotas: report is not written to.
    util::Result<std::string> submit(const job::RenderedJob& job, const job::SubmitFlags& flags,
                                     job::Reporter& report) override;
    // Start a job as submit does (the measurement's sizes, a search's trials).
    util::Result<std::string> submit(const job::RenderedJob& job, const job::SubmitFlags& flags);
    util::Result<job::JobStatus> status(const std::string& job) override;
    std::optional<job::Progress> posted_progress(const std::string& job) override;
    util::Result<std::vector<job::JobStatus>> list(bool all_namespaces) override;
    util::Status logs(const std::string& job, const job::LogOptions& options,
                      const job::LogSink& sink) override;
    util::Result<std::string> remove(const std::string& job, bool wait) override;
    util::Status stop(const std::string& job) override;
    util::Result<job::JobDescription> describe(const std::string& job) override;
    util::Status set_suspended(const std::string& job, bool suspended) override;
    util::Status scale(const std::string& job, int workers) override;

    // Delete a job whatever its state.json says (`delete --force`): stop every process it
    // can identify (its supervisor, replicas whose pid and start time it can read), then
    // remove the state directory.
    util::Status force_remove(const std::string& job) override;

    // Queues, claims, data staging and usage here (backend_resources.cpp).
    util::Result<job::JobUsage> usage(const std::string& job) override;
    util::Result<job::NodeUsageList> node_usage() override;
    util::Result<std::vector<job::QueueEntry>> queue_entries(const std::string& queue) override;
    util::Result<job::QueueList> queues() override;
    util::Result<std::vector<job::TrainingRuntime>> runtimes() override;
    doctor::Report doctor(const job::DoctorRequest& request) override;
    util::Result<std::vector<std::string>> claim_names(
        const std::vector<manifest::Volume>& job_volumes) override;
    util::Status put_data(const job::ClaimTarget& target, const std::string& local_dir,
                          job::Reporter& report) override;
    util::Status get_data(const job::ClaimTarget& target, const std::string& out_dir, bool force,
                          job::Reporter& report) override;
    util::Result<job::Listing> list_data(const job::ClaimTarget& target,
                                         job::Reporter& report) override;

  private:
    util::Status start_supervisor(const std::string& job);
    std::string submitted_to_queue(const JobState& planned);
    // Return a job's status with what its processes show and, in a queue, its place there
    // (members: the queues' jobs when already read; nullptr: read them now).
    job::JobStatus observed_status(const JobState& state, const std::vector<QueueMember>* members);
    util::Status remove_dir(const std::string& job);

    std::ostream& m_err;
    std::string m_kftrain;
};

// Make the local backend for a verb.
std::unique_ptr<job::Backend> make_local_backend(std::ostream& err);

}  // namespace kftrain::backend::local
