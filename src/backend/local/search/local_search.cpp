#include "backend/local/search/local_search.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>

#include "backend/local/search/local_trial.h"
#include "backend/local/search/search_run.h"
#include "backend/local/state/job_state.h"
#include "backend/local/state/name_lock.h"
#include "backend/local/state/state_dir.h"
#include "job/exit_codes.h"
#include "search/search_store.h"
#include "tune/experiment.h"
#include "tune/katib_checks.h"
#include "tune/suggest.h"
#include "util/process_info.h"
#include "util/signals/interrupt.h"
#include "util/text.h"

namespace kftrain::backend::local {
namespace {

using kftrain::tune::SearchStatus;
using kftrain::tune::TrialState;

// How long `tune delete` waits for a running search's kftrain to stop its trials and exit:
// each trial's supervisor has its own grace (local/process/stop.h).
constexpr auto k_stop_wait = std::chrono::seconds(120);
constexpr auto k_stop_poll = std::chrono::milliseconds(20);

// Return what stops a search from starting (exit 2), before anything runs.
util::Status check_request(const job::SearchRequest& request) {
    const auto& spec = request.spec;
    if (!kftrain::tune::runs_locally(spec.algorithm)) {
        return util::error(fmt::format("--algorithm {}: bayesianoptimization and tpe need Katib's "
                                       "suggestion services on a cluster (run without --local); "
                                       "random and grid run locally",
                                       spec.algorithm),
                           k_exit_bad_input);
    }
    if (request.dry_run == job::DryRun::Server) {
        return util::error(
            "--dry-run: server needs a cluster; use --dry-run to print the "
            "Experiment (got server with the local backend)",
            k_exit_bad_input);
    }
    if (auto checked = kftrain::tune::check_tune_spec(spec); !checked) {
        return util::error(checked.error(), k_exit_bad_input);
    }
    if (spec.max_trials > search::k_max_local_trials) {
        return util::error(fmt::format("--max-trials (tune.maxTrials) {}: a local search runs at "
                                       "most {} trials; run a larger one on a cluster (Katib)",
                                       spec.max_trials, search::k_max_local_trials),
                           k_exit_bad_input);
    }
    for (const auto& variable : request.env_from_shell) {
        if (std::getenv(variable.c_str()) == nullptr) {
            return util::error(
                fmt::format("--env-from-shell: {} is not set in this shell", variable),
                k_exit_bad_input);
        }
    }
    const std::string longest = fmt::format("{}-{}", spec.name, spec.max_trials);
    if (!state::check_job_name(spec.name) || !state::check_job_name(longest)) {
        return util::error(fmt::format("search name {}: its trials' jobs ({}) must be DNS-1035 "
                                       "labels of at most 63 characters; choose a shorter name",
                                       spec.name, longest),
                           k_exit_bad_input);
    }
    return util::ok_status();
}

// Return N when job is named as trial N of search name (<name>-N, N from 1, no leading 0s);
// 0 when it is not.
long long trial_number(const std::string& job, const std::string& name) {
    if (job.size() <= name.size() + 1 || job.compare(0, name.size(), name) != 0 ||
        job[name.size()] != '-' || job[name.size() + 1] == '0') {
        return 0;
    }
    long long n = 0;
    const char* first = job.data() + name.size() + 1;
    const char* last = job.data() + job.size();
    auto [end, ec] = std::from_chars(first, last, n);
    return ec == std::errc() && end == last ? n : 0;
}

// Refuse a search whose trials' job names (<name>-1 .. <name>-maxTrials) belong to local jobs
// that are not trials of the same search's last run: they would be replaced, then deleted.
// Looks at the jobs there are, never at every name a search could use.
util::Status check_trial_names(const kftrain::tune::TuneSpec& spec, const SearchStatus* last) {
    std::set<std::string> ours;
    if (last != nullptr) {
        for (const auto& trial : last->trials) {
            ours.insert(trial.name);
        }
    }
    for (const auto& job : backend::local::job_names()) {
        const long long n = trial_number(job, spec.name);
        if (n >= 1 && n <= spec.max_trials && ours.count(job) == 0) {
            return util::error(fmt::format(
                "a local job named {} exists and is not a trial of search {}; the trials of a "
                "search are named {}-1 to {}-{}: delete that job or choose another --name",
                job, spec.name, spec.name, spec.name, spec.max_trials));
        }
    }
    return util::ok_status();
}

// Take a search's lock without waiting: whoever holds it runs the search. Error (exit 2)
// naming the kftrain that runs it when it is taken.
util::Result<backend::local::NameLock> lock_search(const std::string& name) {
    auto lock = backend::local::NameLock::acquire_file(search::search_lock_path(name), "busy",
                                                       std::chrono::milliseconds(0));
    if (lock || lock.error_code(0) != k_exit_bad_input) {
        return lock;
    }
    auto record = search::read_search(name);
    const bool known = record && search::search_process_running(*record);
    return util::error(fmt::format("search {} is already running on this machine{}; wait for it "
                                   "or delete it with `kftrain tune delete {} --local`",
                                   name, known ? fmt::format(" (pid {})", record->pid) : "", name),
                       k_exit_bad_input);
}

// Refuse to start over a search of the same name without --replace (exit 2): its record and
// trials' jobs would be deleted.
util::Status check_rerun(const std::string& name,
                         const util::Result<search::SearchRecord>& existing, bool replace) {
    if (replace || !search::search_exists(name)) {
        return util::ok_status();
    }
    const std::string what =
        existing
            ? fmt::format("{}, {}",
                          existing->status.phase.empty() ? "no phase" : existing->status.phase,
                          util::counted(static_cast<int>(existing->status.trials.size()), "trial"))
            : std::string("its record cannot be read");
    return util::error(fmt::format("search {} exists on this machine ({}); run again with "
                                   "--replace to delete it and its trials' jobs first, or delete "
                                   "it with `kftrain tune delete {} --local`; nothing was started",
                                   name, what, name),
                       k_exit_bad_input);
}

}  // namespace

LocalSearch::LocalSearch(std::ostream& err, std::string kftrain)
    : m_err(err), m_jobs(m_notes, std::move(kftrain)) {}

std::unique_ptr<job::SearchBackend> make_local_search(std::ostream& err) {
    return std::make_unique<LocalSearch>(err);
}

util::Result<int> LocalSearch::start(const job::SearchRequest& request, job::Reporter& report) {
    auto checked = check_request(request);
    if (!checked) {
        return util::error(checked.error(), checked.error_code(k_exit_bad_input));
    }
    const std::string& name = request.spec.name;
    util::catch_termination();      // from here SIGTERM and SIGHUP stop the trials as Ctrl-C does
    auto lock = lock_search(name);  // held until the search ends: one run of a name at a time
    if (!lock) {
        return util::error(lock.error(), lock.error_code(k_exit_cluster));
    }
    auto existing = search::read_search(name);
    if (auto rerun = check_rerun(name, existing, request.replace); !rerun) {
        return util::error(rerun.error(), k_exit_bad_input);
    }
    auto suggester = kftrain::tune::Suggester::make(request.spec.algorithm, request.spec.params,
                                                    kftrain::tune::default_seed(name));
    if (!suggester) {
        return util::error(suggester.error(), k_exit_bad_input);
    }
    auto first = manifest::render_job(kftrain::tune::trial_job_spec(request.job, {}, name + "-1"),
                                      request.job_template);
    if (!first) {
        return util::error(first.error(), k_exit_bad_input);
    }
    if (auto taken = check_trial_names(request.spec, existing ? &existing->status : nullptr);
        !taken) {
        return util::error(taken.error(), k_exit_bad_input);
    }
    if (search::search_exists(name)) {
        auto removed = remove_stopped(name);  // --replace: the earlier run goes first
        if (!removed) {
            return util::error(removed.error(), removed.error_code(k_exit_cluster));
        }
    }
    SearchRun run(m_jobs, m_notes, m_err, request, report, std::move(*suggester), m_poll);
    return run.run();
}

util::Result<SearchStatus> LocalSearch::status(const std::string& name) {
    auto record = search::read_search(name);
    if (!record) {
        return record.error_value();
    }
    SearchStatus& s = record->status;
    if (is_final_phase(s.phase) || search::search_process_running(*record)) {
        return s;
    }
    // The kftrain that ran the search is gone: its trials' jobs run on under their
    // supervisors, so read them; no new trial will start.
    for (auto& trial : s.trials) {
        if (trial.state == TrialState::Running) {
            refresh_trial(m_jobs, trial, s);
        }
    }
    s.best_trial = kftrain::tune::best_trial(s.trials, s.maximize);
    s.phase = "Failed";
    s.reason = "SearchLost";
    s.message = fmt::format("the kftrain that ran the search (pid {}) ended before the search did",
                            record->pid);
    return s;
}

util::Result<std::string> LocalSearch::trial_job(const std::string& name,
                                                 const std::string& trial) {
    auto record = search::read_search(name);
    if (!record) {
        return record.error_value();
    }
    const auto& trials = record->status.trials;
    for (const auto& t : trials) {
        if (t.name == trial || std::to_string(t.index) == trial) {
            return t.name;
        }
    }
    return util::error(fmt::format("search {} has no trial {} (it has {}{})", name, trial,
                                   trials.empty() ? "none" : "1 to ",
                                   trials.empty() ? "" : std::to_string(trials.size())),
                       k_exit_not_found);
}

util::Result<backend::local::NameLock> LocalSearch::stop_search(const std::string& name) {
    const auto deadline = std::chrono::steady_clock::now() + k_stop_wait;
    long long signalled = 0;
    while (true) {
        auto lock = backend::local::NameLock::acquire_file(search::search_lock_path(name), "busy",
                                                           std::chrono::milliseconds(0));
        if (lock || lock.error_code(0) != k_exit_bad_input) {
            return lock;  // no kftrain runs the search now (or the lock cannot be taken)
        }
        // Signal only the kftrain the record names with its start time, never this one.
        auto record = search::read_search(name);
        if (record && !is_final_phase(record->status.phase) &&
            search::search_process_running(*record) && record->pid != ::getpid() &&
            record->pid != signalled) {
            ::kill(static_cast<pid_t>(record->pid), SIGTERM);  // it stops its trials and exits
            signalled = record->pid;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return util::error(
                fmt::format("search {} is still running on this machine{}: it did "
                            "not stop within {}s; nothing was deleted",
                            name,
                            signalled != 0 ? fmt::format(" (pid {})", signalled) : std::string(),
                            k_stop_wait.count()),
                k_exit_cluster);
        }
        std::this_thread::sleep_for(k_stop_poll);
    }
}

util::Status LocalSearch::remove_stopped(const std::string& name) {
    auto record = search::read_search(name, false);
    if (record) {
        for (const auto& trial : record->status.trials) {
            auto removed = m_jobs.remove(trial.name, true);
            if (!removed && removed.error_code(0) != k_exit_not_found) {
                return removed.error_value();
            }
        }
    } else if (record.error_code(0) != k_exit_not_found) {
        m_err << fmt::format(
            "kftrain: warning: {}; its trials' jobs ({}-1, ...), if any, are "
            "left: delete them with `kftrain delete JOB --local`\n",
            record.error(), name);
    }
    return search::remove_search(name);
}

util::Result<std::vector<std::string>> LocalSearch::names() {
    return search::search_names();
}

util::Result<std::string> LocalSearch::remove(const std::string& name) {
    auto checked = search::read_search(name);
    if (!checked && (checked.error_code(0) == k_exit_bad_input || !search::search_exists(name))) {
        return checked.error_value();  // a bad name, or no such search
    }
    auto lock = stop_search(name);  // a running search stops its trials and exits first
    if (!lock) {
        return lock.error_value();
    }
    if (auto removed = remove_stopped(name); !removed) {
        return removed.error_value();
    }
    return fmt::format("search {} deleted, with its trials' jobs", name);
}

}  // namespace kftrain::backend::local
