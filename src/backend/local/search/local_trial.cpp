#include "backend/local/search/local_trial.h"

#include <fmt/format.h>

#include "backend/local/state/job_state.h"
#include "progress/progress_line.h"
#include "progress/text_line.h"
#include "tune/metric_lines.h"
#include "util/process_info.h"
#include "util/text.h"
#include "wire/progress_events.h"

namespace kftrain::backend::local {
namespace {

using kftrain::tune::SearchStatus;
using kftrain::tune::TrialRecord;
using kftrain::tune::TrialState;

// Return the lead replica of a local job (master-0, or a TrainJob's node-0): its rank 0
// prints the metric lines.
std::string lead_replica(const std::string& job) {
    auto state = backend::local::read_job_state(job);
    if (state) {
        for (const auto& replica : state->replicas) {
            if (backend::local::is_lead_replica(replica)) {
                return replica.name;
            }
        }
    }
    return "master-0";
}

// Add the metrics of a progress line at an epoch's end or the end (docs/progress.md): its
// loss, accuracy and numeric metrics. Lines within an epoch report a window of batches.
void add_progress_metrics(const std::string& text, std::vector<kftrain::tune::MetricValue>& out) {
    auto progress = progress::parse_progress_line(text);
    if (!progress ||
        (progress->event != wire::event::k_epoch && progress->event != wire::event::k_finish)) {
        return;
    }
    if (progress->loss) {
        out.push_back({wire::field::k_loss, *progress->loss});
    }
    if (progress->accuracy) {
        out.push_back({wire::field::k_accuracy, *progress->accuracy});
    }
    for (const auto& [name, value] : progress->metrics) {
        if (auto number = util::parse_number(value, false)) {
            out.push_back({name, *number});
        }
    }
}

// Add the metrics of text progress (progress/text_line.h): a Trainer dict, a Keras line, a
// bar's postfix, a plain line's "name: value", each drawing of a redrawn bar.
void add_text_metrics(const std::string& text, std::vector<kftrain::tune::MetricValue>& out) {
    for (const std::string& drawing : util::split(text, '\r')) {
        if (auto reading = progress::read_text_line(drawing)) {
            for (const auto& [name, value] : reading->metrics) {
                out.push_back({name, value});
            }
        }
    }
}

// Read a trial's metrics from its lead replica's output (NAME=VALUE lines, else progress
// lines and the progress programs print of their own), reduced as Katib reduces them.
void read_metrics(backend::local::LocalBackend& jobs, TrialRecord& trial, const SearchStatus& s) {
    job::LogOptions options;
    options.replica = lead_replica(trial.name);
    std::vector<kftrain::tune::MetricValue> values;
    std::vector<kftrain::tune::MetricValue> progress;
    jobs.logs(trial.name, options, [&](const job::LogLine& line) {
        if (!line.notice) {
            auto found = kftrain::tune::parse_metric_line(line.text);
            values.insert(values.end(), found.begin(), found.end());
            add_progress_metrics(line.text, progress);
            add_text_metrics(line.text, progress);
        }
    });
    trial.metrics = kftrain::tune::reduce_trial_metrics(values, progress, s.maximize);
    auto it = trial.metrics.find(s.objective_metric);
    if (it != trial.metrics.end()) {
        trial.objective = it->second;
    }
}

// Record how a trial's job ended: its state, objective and times.
void finish_trial(backend::local::LocalBackend& jobs, TrialRecord& trial, const SearchStatus& s,
                  const job::JobStatus& status) {
    read_metrics(jobs, trial, s);
    if (!status.started.empty()) {
        trial.started = status.started;
    }
    trial.finished = status.finished.empty() ? util::now_timestamp() : status.finished;
    if (status.phase == job::JobPhase::Failed) {
        trial.state = TrialState::Failed;
        trial.message =
            status.reason.empty() ? status.message : status.reason + ": " + status.message;
    } else if (trial.objective) {
        trial.state = TrialState::Succeeded;
    } else {
        trial.state = TrialState::MetricsUnavailable;
        trial.message = fmt::format("its output had no {}=VALUE line and no progress line with {}",
                                    s.objective_metric, s.objective_metric);
    }
}

}  // namespace

bool refresh_trial(backend::local::LocalBackend& jobs, TrialRecord& trial, const SearchStatus& s) {
    auto status = jobs.status(trial.name);
    if (!status) {
        trial.state = TrialState::Failed;
        trial.message = status.error();
        trial.finished = util::now_timestamp();
        return true;
    }
    if (!job::is_finished(status->phase)) {
        return false;
    }
    finish_trial(jobs, trial, s, *status);
    return true;
}

}  // namespace kftrain::backend::local
