#include "cli/search/local_search.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <thread>

#include "cli/exit_codes.h"
#include "cli/job/interrupt.h"
#include "cli/local/process/proc_info.h"
#include "cli/local/state/job_state.h"
#include "cli/local/state/state_dir.h"
#include "cli/search/local_trial.h"
#include "cli/search/search_store.h"
#include "cli/view/search_view.h"
#include "tune/experiment.h"
#include "tune/katib_checks.h"
#include "tune/suggest.h"
#include "util/text.h"

namespace kftrain::cli::search {
namespace {

using kftrain::tune::SearchStatus;
using kftrain::tune::TrialRecord;
using kftrain::tune::TrialState;

// How a search ended: its phase, Katib's reason for it and a sentence.
struct SearchEnd {
    std::string phase;
    std::string reason;
    std::string message;
};

bool is_final_phase(const std::string& phase) {
    return phase == "Succeeded" || phase == "Failed" || phase == "Interrupted";
}

int count_state(const SearchStatus& s, std::initializer_list<TrialState> states) {
    return static_cast<int>(
        std::count_if(s.trials.begin(), s.trials.end(), [&](const TrialRecord& t) {
            return std::find(states.begin(), states.end(), t.state) != states.end();
        }));
}

int running_trials(const SearchStatus& s) {
    return count_state(s, {TrialState::Running, TrialState::Pending});
}

// Succeeded when a trial succeeded, else Failed, with the reason given.
SearchEnd ended_by(const SearchStatus& s, const std::string& reason, const std::string& what) {
    int succeeded = count_state(s, {TrialState::Succeeded});
    if (succeeded > 0) {
        return {"Succeeded", reason, fmt::format("{}; {} succeeded", what, succeeded)};
    }
    return {"Failed", reason, fmt::format("{} and none succeeded", what)};
}

// Decide whether a search is over, with Katib's reasons and in Katib's order: the goal, too
// many failed trials, the trial budget, the end of the suggestions (the grid).
std::optional<SearchEnd> search_end(const SearchStatus& s, bool exhausted) {
    if (s.goal) {
        for (const auto& t : s.trials) {
            if (t.objective && kftrain::tune::reaches_goal(*t.objective, *s.goal, s.maximize)) {
                return SearchEnd{
                    "Succeeded", "ExperimentGoalReached",
                    fmt::format("trial {} ({}) reached the goal: {}={} ({} {})", t.index, t.name,
                                s.objective_metric, view::format_metric(*t.objective),
                                s.maximize ? ">=" : "<=", view::format_metric(*s.goal))};
            }
        }
    }
    int failed = count_state(s, {TrialState::Failed, TrialState::MetricsUnavailable});
    if (failed > s.max_failed_trials) {
        return SearchEnd{"Failed", "ExperimentFailed",
                         fmt::format("{} failed, more than the {} allowed (max failed trials)",
                                     util::counted(failed, "trial"), s.max_failed_trials)};
    }
    int done = static_cast<int>(s.trials.size()) - running_trials(s);
    if (done >= s.max_trials) {
        return ended_by(s, "ExperimentMaxTrialsReached",
                        s.max_trials == 1
                            ? std::string("the one trial (max trials) ended")
                            : fmt::format("all {} trials (max trials) ended", s.max_trials));
    }
    if (exhausted && running_trials(s) == 0) {
        return ended_by(s, "ExperimentSuggestionEndReached",
                        fmt::format("the grid's {} points were all tried", s.trials.size()));
    }
    return std::nullopt;
}

bool process_running(const SearchRecord& record) {
    return record.pid != 0 && local::process_alive(record.pid, record.pid_ticks);
}

// Runs one search here to its end.
class SearchRun {
  public:
    SearchRun(local::LocalBackend& jobs, std::ostringstream& notes, std::ostream& err,
              const SearchRequest& request, Context& ctx, kftrain::tune::Suggester suggester,
              std::chrono::milliseconds poll)
        : m_jobs(jobs),
          m_notes(notes),
          m_err(err),
          m_request(request),
          m_ctx(ctx),
          m_suggester(std::move(suggester)),
          m_poll(poll) {}

    int run();

  private:
    SearchStatus& status() { return m_record.status; }
    void init_record();
    util::Status start_trial(const kftrain::tune::Assignment& values);
    bool poll_trials();
    void stop_running(const std::string& why);
    int finish(const SearchEnd& how, int code);
    void save();
    void print_new_notes();

    local::LocalBackend& m_jobs;
    std::ostringstream& m_notes;
    std::ostream& m_err;
    std::set<std::string> m_noted;
    const SearchRequest& m_request;
    Context& m_ctx;
    kftrain::tune::Suggester m_suggester;
    std::chrono::milliseconds m_poll;
    SearchRecord m_record;
};

void SearchRun::init_record() {
    const auto& spec = m_request.spec;
    SearchStatus& s = status();
    s.name = spec.name;
    s.namespace_ = m_request.job.namespace_;
    s.backend = "local";
    s.job_kind = manifest::kind_name(m_request.job.kind);
    s.phase = "Running";
    s.reason = "ExperimentRunning";
    s.objective_metric = spec.objective.metric;
    s.maximize = spec.objective.maximize;
    s.goal = spec.objective.goal;
    s.algorithm = spec.algorithm;
    s.max_trials = spec.max_trials;
    s.parallel = spec.parallel;
    s.max_failed_trials = spec.max_failed_trials;
    for (const auto& param : spec.params) {
        s.param_names.push_back(param.name);
        m_record.spaces.push_back(kftrain::tune::format_space(param));
    }
    s.created = local::now_timestamp();
    m_record.seed = kftrain::tune::default_seed(spec.name);
    m_record.pid = ::getpid();
    m_record.pid_ticks = local::process_start_ticks(m_record.pid).value_or(0);
}

void SearchRun::save() {
    status().best_trial = kftrain::tune::best_trial(status().trials, status().maximize);
    auto written = write_search(m_record);
    if (!written) {
        m_ctx.err << "kftrain: warning: " << written.error() << "\n";
    }
}

// Print the local backend's notes on a trial's job once, not once per trial.
void SearchRun::print_new_notes() {
    std::istringstream lines(m_notes.str());
    m_notes.str("");
    for (std::string line; std::getline(lines, line);) {
        if (m_noted.insert(line).second) {
            m_err << line << "\n";
        }
    }
}

util::Status SearchRun::start_trial(const kftrain::tune::Assignment& values) {
    TrialRecord trial;
    trial.index = static_cast<int>(status().trials.size()) + 1;
    trial.name = fmt::format("{}-{}", status().name, trial.index);
    trial.params = values;
    job::RenderedJob rendered;
    rendered.spec = kftrain::tune::trial_job_spec(m_request.job, values, trial.name);
    auto manifest = manifest::render_job(rendered.spec, m_request.job_template);
    if (!manifest) {
        return util::error(manifest.error(), k_exit_bad_input);
    }
    rendered.manifest = *manifest;
    auto submitted = m_jobs.submit(rendered, job::SubmitFlags{});
    print_new_notes();
    if (!submitted) {
        return util::error(fmt::format("trial {}: {}", trial.name, submitted.error()),
                           submitted.error_code(k_exit_cluster));
    }
    trial.state = TrialState::Running;
    trial.started = local::now_timestamp();
    status().trials.push_back(std::move(trial));
    return util::ok_status();
}

bool SearchRun::poll_trials() {
    bool changed = false;
    for (auto& trial : status().trials) {
        if (trial.state == TrialState::Running && refresh_trial(m_jobs, trial, status())) {
            changed = true;
            m_ctx.out << view::format_trial_line(trial, status()) << std::endl;
        }
    }
    return changed;
}

void SearchRun::stop_running(const std::string& why) {
    for (auto& trial : status().trials) {
        if (!kftrain::tune::is_trial_done(trial.state)) {
            if (refresh_trial(m_jobs, trial, status())) {
                m_ctx.out << view::format_trial_line(trial, status()) << std::endl;
                continue;  // it ended since the last look: keep its result
            }
            m_jobs.stop(trial.name);
            trial.state = TrialState::Killed;
            trial.finished = local::now_timestamp();
            trial.message = why;
        }
    }
}

int SearchRun::finish(const SearchEnd& how, int code) {
    SearchStatus& s = status();
    s.phase = how.phase;
    s.reason = how.reason;
    s.message = how.message;
    s.finished = local::now_timestamp();
    save();
    m_ctx.out << "\n";
    view::print_search(m_ctx.out, s, view::OutputFormat::Table, std::time(nullptr));
    return code;
}

int SearchRun::run() {
    init_record();
    save();
    m_ctx.out << fmt::format("search {} started (local): {} over {}; {}, {} at a time",
                             status().name, status().algorithm,
                             fmt::join(status().param_names, ", "),
                             util::counted(status().max_trials, "trial"), status().parallel)
              << std::endl;
    job::catch_interrupts();
    bool exhausted = false;
    while (true) {
        if (job::interrupt_requested()) {
            stop_running("stopped by an interrupt (Ctrl-C)");
            return finish({"Interrupted", "ExperimentInterrupted",
                           "stopped by an interrupt (Ctrl-C); its running trials were killed"},
                          k_exit_interrupted);
        }
        bool changed = poll_trials();
        if (auto over = search_end(status(), exhausted)) {
            stop_running("stopped: the search ended");
            return finish(*over, over->phase == "Succeeded" ? k_exit_ok : k_exit_job_failed);
        }
        while (!exhausted && running_trials(status()) < status().parallel &&
               static_cast<int>(status().trials.size()) < status().max_trials) {
            auto values = m_suggester.next();
            if (!values) {
                exhausted = true;
                break;
            }
            auto started = start_trial(*values);
            if (!started) {
                stop_running("stopped: the search could not start a trial");
                finish({"Failed", "ExperimentFailed", started.error()}, k_exit_job_failed);
                return report_error(m_ctx, started.error(), started.error_code(k_exit_cluster));
            }
            changed = true;
        }
        if (changed) {
            save();
            continue;  // look again at once: a trial may have ended meanwhile
        }
        std::this_thread::sleep_for(m_poll);
    }
}

// Return what stops a search from starting (exit 2), before anything runs.
util::Status check_request(const SearchRequest& request) {
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
    const std::string longest = fmt::format("{}-{}", spec.name, spec.max_trials);
    if (!local::check_job_name(spec.name) || !local::check_job_name(longest)) {
        return util::error(fmt::format("search name {}: its trials' jobs ({}) must be DNS-1035 "
                                       "labels of at most 63 characters; choose a shorter name",
                                       spec.name, longest),
                           k_exit_bad_input);
    }
    return util::ok_status();
}

// Refuse a search whose trials' job names (<name>-1 .. <name>-maxTrials) belong to local jobs
// that are not trials of the same search's last run: they would be replaced, then deleted.
util::Status check_trial_names(const kftrain::tune::TuneSpec& spec, const SearchStatus* last) {
    std::set<std::string> ours;
    if (last != nullptr) {
        for (const auto& trial : last->trials) {
            ours.insert(trial.name);
        }
    }
    std::set<std::string> names;
    for (int i = 1; i <= spec.max_trials; ++i) {
        names.insert(fmt::format("{}-{}", spec.name, i));
    }
    for (const auto& job : local::job_names()) {
        if (names.count(job) != 0 && ours.count(job) == 0) {
            return util::error(fmt::format(
                "a local job named {} exists and is not a trial of search {}; the trials of a "
                "search are named {}-1 to {}-{}: delete that job or choose another --name",
                job, spec.name, spec.name, spec.name, spec.max_trials));
        }
    }
    return util::ok_status();
}

}  // namespace

LocalSearch::LocalSearch(std::ostream& err, std::string kftrain)
    : m_err(err), m_jobs(m_notes, std::move(kftrain)) {}

std::unique_ptr<SearchBackend> make_local_search(std::ostream& err) {
    return std::make_unique<LocalSearch>(err);
}

int LocalSearch::start(const SearchRequest& request, Context& ctx) {
    auto checked = check_request(request);
    if (!checked) {
        return report_error(ctx, checked.error(), checked.error_code(k_exit_bad_input));
    }
    const std::string& name = request.spec.name;
    auto existing = read_search(name);
    if (existing && !is_final_phase(existing->status.phase) && process_running(*existing)) {
        return report_error(ctx,
                            fmt::format("search {} is already running on this machine (pid {}); "
                                        "wait for it or delete it with `kftrain tune delete {} "
                                        "--local`",
                                        name, existing->pid, name),
                            k_exit_bad_input);
    }
    auto suggester = kftrain::tune::Suggester::make(request.spec.algorithm, request.spec.params,
                                                    kftrain::tune::default_seed(name));
    if (!suggester) {
        return report_error(ctx, suggester.error(), k_exit_bad_input);
    }
    auto first = manifest::render_job(kftrain::tune::trial_job_spec(request.job, {}, name + "-1"),
                                      request.job_template);
    if (!first) {
        return report_error(ctx, first.error(), k_exit_bad_input);
    }
    if (auto taken = check_trial_names(request.spec, existing ? &existing->status : nullptr);
        !taken) {
        return report_error(ctx, taken.error(), k_exit_bad_input);
    }
    if (existing) {
        auto removed = remove(name);  // a finished search of the same name is replaced
        if (!removed) {
            return report_error(ctx, removed.error(), removed.error_code(k_exit_cluster));
        }
    }
    SearchRun run(m_jobs, m_notes, m_err, request, ctx, std::move(*suggester), m_poll);
    return run.run();
}

util::Result<SearchStatus> LocalSearch::status(const std::string& name) {
    auto record = read_search(name);
    if (!record) {
        return record.error_value();
    }
    SearchStatus& s = record->status;
    if (is_final_phase(s.phase) || process_running(*record)) {
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
    auto record = read_search(name);
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

util::Status LocalSearch::remove(const std::string& name) {
    auto record = read_search(name);
    if (!record) {
        return record.error_value();
    }
    if (!is_final_phase(record->status.phase) && process_running(*record)) {
        ::kill(static_cast<pid_t>(record->pid), SIGTERM);  // it starts no further trial
    }
    for (const auto& trial : record->status.trials) {
        auto removed = m_jobs.remove(trial.name, true);
        if (!removed && removed.error_code(0) != k_exit_not_found) {
            return removed.error_value();
        }
    }
    return remove_search(name);
}

}  // namespace kftrain::cli::search
