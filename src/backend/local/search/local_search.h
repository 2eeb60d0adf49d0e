#pragma once

#include <chrono>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>

#include "backend/local/local_backend.h"
#include "backend/local/state/name_lock.h"
#include "job/search_backend.h"

namespace kftrain::backend::local {

// Runs a search on this machine: each trial a local job (`<search>-<N>`) through the local
// backend, `parallel` at a time, recorded in the search's store (search_store.h) after every
// change so `tune status --local` reads it from anywhere.
class LocalSearch : public job::SearchBackend {
  public:
    // Make the backend; notes go to err; kftrain is the binary that supervises the trials'
    // jobs (default: the running one).
    explicit LocalSearch(std::ostream& err, std::string kftrain = "");

    bool on_this_machine() const override { return true; }
    util::Result<std::vector<std::string>> names() override;
    util::Result<int> start(const job::SearchRequest& request, job::Reporter& report) override;
    util::Result<kftrain::tune::SearchStatus> status(const std::string& name) override;
    util::Result<std::string> trial_job(const std::string& name, const std::string& trial) override;
    util::Result<std::string> remove(const std::string& name) override;

    // Set how often a running search looks at its trials (tests look often).
    void set_poll_interval(std::chrono::milliseconds interval) { m_poll = interval; }

  private:
    // Take a search's lock, first stopping the kftrain that runs it (SIGTERM: it stops its
    // trials, records the search and exits); an error when it does not stop in time.
    util::Result<backend::local::NameLock> stop_search(const std::string& name);
    // Delete a search that no kftrain runs (its lock held): its trials' jobs, then its record;
    // a damaged record is deleted with a warning naming it.
    util::Status remove_stopped(const std::string& name);

    std::ostream& m_err;
    std::ostringstream m_notes;  // the local backend's notes, each printed once to m_err
    backend::local::LocalBackend m_jobs;
    std::chrono::milliseconds m_poll{300};
};

// Make the local search backend for a `tune` verb.
std::unique_ptr<job::SearchBackend> make_local_search(std::ostream& err);

}  // namespace kftrain::backend::local
