#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "cli/backend.h"
#include "cli/local/job_state.h"

namespace kftrain::cli::local {

// Runs jobs on this machine: each replica a process, under a detached
// supervisor (`kftrain __supervise NAME`) that records the job in its state
// directory (state_dir.h). Every verb reads that state.
class LocalBackend : public Backend {
  public:
    // Make the backend; notes go to err; kftrain is the binary that supervises
    // (default: the running one).
    LocalBackend(std::ostream& err, std::string kftrain = "");

    std::string name() const override { return "local"; }
    util::Result<std::string> submit(const RenderedJob& job, const SubmitFlags& flags) override;
    util::Result<JobStatus> status(const std::string& job) override;
    util::Result<std::vector<JobStatus>> list(bool all_namespaces) override;
    util::Status logs(const std::string& job, const LogOptions& options,
                      const LogSink& sink) override;
    util::Status remove(const std::string& job, bool wait) override;
    util::Status stop(const std::string& job) override;
    util::Result<std::string> describe(const std::string& job) override;

  private:
    util::Status start_supervisor(const std::string& job);

    std::ostream& m_err;
    std::string m_kftrain;
};

// Make the local backend for a verb.
std::unique_ptr<Backend> make_local_backend(std::ostream& err);

// Return whether a job's supervisor still runs.
bool supervisor_alive(const JobState& state);

// Stop a job's processes: SIGTERM to its supervisor (which stops the
// replicas), SIGKILL to anything left after the grace period.
void stop_processes(const JobState& state);

// Stream a job's logs to sink (local_logs.cpp).
util::Status read_logs(const std::string& job, const LogOptions& options, const LogSink& sink);

// Return the longer account `describe` prints.
std::string describe_text(const JobState& state, const JobStatus& status);

}  // namespace kftrain::cli::local
