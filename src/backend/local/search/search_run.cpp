#include "backend/local/search/search_run.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <random>
#include <thread>

#include "backend/local/search/local_trial.h"
#include "job/exit_codes.h"
#include "tune/experiment.h"
#include "tune/katib_checks.h"
#include "util/process_info.h"
#include "util/signals/interrupt.h"
#include "util/text.h"

namespace kftrain::backend::local {
namespace {

using kftrain::tune::SearchStatus;
using kftrain::tune::TrialRecord;
using kftrain::tune::TrialState;

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
                                s.objective_metric, kftrain::tune::format_metric(*t.objective),
                                s.maximize ? ">=" : "<=", kftrain::tune::format_metric(*s.goal))};
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

// Return a new run id: 8 hex digits, so that each run of a search names its trials'
// checkpoint directories afresh.
std::string new_run_id() {
    std::random_device device;
    return fmt::format("{:08x}", device());
}

}  // namespace

bool is_final_phase(const std::string& phase) {
    return phase == "Succeeded" || phase == "Failed" || phase == "Interrupted";
}

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
    s.created = util::now_timestamp();
    m_record.run = new_run_id();
    m_record.seed = kftrain::tune::default_seed(spec.name);
    m_record.pid = ::getpid();
    m_record.pid_ticks = util::process_start_ticks(m_record.pid).value_or(0);
}

void SearchRun::save() {
    status().best_trial = kftrain::tune::best_trial(status().trials, status().maximize);
    auto written = write_search(m_record);
    if (!written) {
        m_report.notes << "kftrain: warning: " << written.error() << "\n";
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
    rendered.spec = kftrain::tune::trial_job_spec(m_request.job, values, trial.name, m_record.run);
    auto manifest = manifest::render_job(rendered.spec, m_request.job_template);
    if (!manifest) {
        return util::error(manifest.error(), k_exit_bad_input);
    }
    rendered.manifest = *manifest;
    // Each trial runs a copy of the files read when the search started.
    rendered.code = m_request.code;
    job::SubmitFlags flags;
    flags.env_from_shell = m_request.env_from_shell;
    auto submitted = m_jobs.submit(rendered, flags);
    print_new_notes();
    if (!submitted) {
        return util::error(fmt::format("trial {}: {}", trial.name, submitted.error()),
                           submitted.error_code(k_exit_cluster));
    }
    trial.state = TrialState::Running;
    trial.started = util::now_timestamp();
    status().trials.push_back(std::move(trial));
    return util::ok_status();
}

void SearchRun::report_trial(const kftrain::tune::TrialRecord& trial) {
    if (m_request.report.trial_line) {
        m_report.out << m_request.report.trial_line(trial, status()) << std::endl;
    }
}

bool SearchRun::poll_trials() {
    bool changed = false;
    for (auto& trial : status().trials) {
        if (trial.state == TrialState::Running && refresh_trial(m_jobs, trial, status())) {
            changed = true;
            report_trial(trial);
        }
    }
    return changed;
}

void SearchRun::stop_running(const std::string& why) {
    for (auto& trial : status().trials) {
        if (!kftrain::tune::is_trial_done(trial.state)) {
            if (refresh_trial(m_jobs, trial, status())) {
                report_trial(trial);
                continue;  // it ended since the last look: keep its result
            }
            m_jobs.stop(trial.name);
            trial.state = TrialState::Killed;
            trial.finished = util::now_timestamp();
            trial.message = why;
        }
    }
}

int SearchRun::finish(const SearchEnd& how, int code) {
    SearchStatus& s = status();
    s.phase = how.phase;
    s.reason = how.reason;
    s.message = how.message;
    s.finished = util::now_timestamp();
    save();
    if (m_request.report.summary) {
        m_report.out << "\n";
        m_request.report.summary(m_report.out, s);
    }
    return code;
}

util::Result<int> SearchRun::run() {
    init_record();
    save();
    m_report.out << fmt::format("search {} started (local): {} over {}; {}, {} at a time",
                                status().name, status().algorithm,
                                fmt::join(status().param_names, ", "),
                                util::counted(status().max_trials, "trial"), status().parallel)
                 << std::endl;
    bool exhausted = false;
    while (true) {
        if (util::interrupt_requested()) {
            const std::string by = util::interrupt_name();
            stop_running("stopped by " + by);
            return finish({"Interrupted", "ExperimentInterrupted",
                           "stopped by " + by + "; its running trials were killed"},
                          k_exit_interrupted);
        }
        bool changed = poll_trials();
        if (auto over = search_end(status(), exhausted)) {
            stop_running("stopped: the search ended");
            return finish(*over, over->phase == "Succeeded" ? k_exit_ok : k_exit_job_failed);
        }
        while (!exhausted && !util::interrupt_requested() &&
               running_trials(status()) < status().parallel &&
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
                return util::error(started.error(), started.error_code(k_exit_cluster));
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

}  // namespace kftrain::backend::local
