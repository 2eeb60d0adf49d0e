#pragma once

#include <chrono>
#include <ostream>
#include <set>
#include <sstream>
#include <string>

#include "backend/local/local_backend.h"
#include "job/context.h"
#include "job/search_backend.h"
#include "search/search_store.h"
#include "tune/suggest.h"

namespace kftrain::backend::local {

// Return whether a search's phase is final: Succeeded, Failed or Interrupted.
bool is_final_phase(const std::string& phase);

// How a search ended: its phase, Katib's reason for it and a sentence.
struct SearchEnd {
    std::string phase;
    std::string reason;
    std::string message;
};

// Runs one local search here to its end: trials as local jobs, `parallel` at a time, the
// record rewritten after each change. A caught SIGINT, SIGTERM or SIGHUP (util/signals/interrupt.h)
// stops its running trials, records the search Interrupted and returns 130.
class SearchRun {
  public:
    SearchRun(backend::local::LocalBackend& jobs, std::ostringstream& notes, std::ostream& err,
              const job::SearchRequest& request, job::Reporter& report,
              kftrain::tune::Suggester suggester, std::chrono::milliseconds poll)
        : m_jobs(jobs),
          m_notes(notes),
          m_err(err),
          m_request(request),
          m_report(report),
          m_suggester(std::move(suggester)),
          m_poll(poll) {}

    // Run the search to its end and return the exit code: 0 when it Succeeded, 1 when it
    // Failed, 130 when a signal stopped it; an error when a trial could not start.
    util::Result<int> run();

  private:
    kftrain::tune::SearchStatus& status() { return m_record.status; }
    void init_record();
    util::Status start_trial(const kftrain::tune::Assignment& values);
    bool poll_trials();
    void stop_running(const std::string& why);
    int finish(const SearchEnd& how, int code);
    // Print a trial's line as the request's report says.
    void report_trial(const kftrain::tune::TrialRecord& trial);
    void save();
    void print_new_notes();

    backend::local::LocalBackend& m_jobs;
    std::ostringstream& m_notes;
    std::ostream& m_err;
    std::set<std::string> m_noted;
    const job::SearchRequest& m_request;
    job::Reporter& m_report;
    kftrain::tune::Suggester m_suggester;
    std::chrono::milliseconds m_poll;
    search::SearchRecord m_record;
};

}  // namespace kftrain::backend::local
