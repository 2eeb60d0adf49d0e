#include "cli/view/search_view.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/view/field_text.h"
#include "estimate/units.h"
#include "inspect/status_json.h"
#include "search/trial_json.h"
#include "util/json_optional.h"
#include "util/json_text.h"
#include "util/text_table.h"
#include "util/time_text.h"

namespace kftrain::cli::view {
namespace {

using kftrain::tune::SearchStatus;
using kftrain::tune::TrialRecord;
using kftrain::tune::TrialState;
using nlohmann::json;

using util::optional_json;
std::string upper(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return text;
}

std::string best_name(const SearchStatus& s) {
    return s.best_trial.empty() ? kftrain::tune::best_trial(s.trials, s.maximize) : s.best_trial;
}

const TrialRecord* find_trial(const SearchStatus& s, const std::string& name) {
    for (const auto& t : s.trials) {
        if (!name.empty() && t.name == name) {
            return &t;
        }
    }
    return nullptr;
}

std::string format_params(const TrialRecord& t) {
    std::vector<std::string> parts;
    for (const auto& [name, value] : t.params) {
        parts.push_back(name + "=" + value);
    }
    return fmt::format("{}", fmt::join(parts, " "));
}

std::string format_state_line(const SearchStatus& s) {
    std::string line = s.phase.empty() ? "Unknown" : s.phase;
    if (!s.reason.empty()) {
        line += fmt::format(" ({})", s.reason);
    }
    if (!s.message.empty()) {
        line += ": " + s.message;
    }
    return line;
}

std::string format_objective(const SearchStatus& s) {
    std::string line =
        fmt::format("{} ({}", s.objective_metric, s.maximize ? "maximize" : "minimize");
    if (s.goal) {
        line += ", goal " + kftrain::tune::format_metric(*s.goal);
    }
    return line + ")";
}

// "4 of 12 done (3 succeeded, 1 failed), 2 running"
std::string format_trial_counts(const SearchStatus& s) {
    static const std::pair<TrialState, const char*> k_done[] = {
        {TrialState::Succeeded, "succeeded"},
        {TrialState::Failed, "failed"},
        {TrialState::MetricsUnavailable, "without metrics"},
        {TrialState::EarlyStopped, "early stopped"},
        {TrialState::Killed, "killed"},
    };
    int done = 0;
    std::vector<std::string> parts;
    for (const auto& [state, label] : k_done) {
        int n =
            static_cast<int>(std::count_if(s.trials.begin(), s.trials.end(),
                                           [&](const TrialRecord& t) { return t.state == state; }));
        done += n;
        if (n > 0) {
            parts.push_back(fmt::format("{} {}", n, label));
        }
    }
    std::string line = fmt::format("{} of {} done", done, s.max_trials);
    if (!parts.empty()) {
        line += fmt::format(" ({})", fmt::join(parts, ", "));
    }
    for (auto [state, label] :
         {std::pair{TrialState::Running, "running"}, std::pair{TrialState::Pending, "pending"}}) {
        auto n = std::count_if(s.trials.begin(), s.trials.end(),
                               [&](const TrialRecord& t) { return t.state == state; });
        if (n > 0) {
            line += fmt::format(", {} {}", n, label);
        }
    }
    return line;
}

std::optional<double> search_duration(const SearchStatus& s, std::time_t now) {
    auto start = util::parse_timestamp(s.created);
    if (!start) {
        return std::nullopt;
    }
    auto end = util::parse_timestamp(s.finished);
    return std::max(0.0, std::difftime(end ? *end : now, *start));
}

void print_trials(std::ostream& out, const SearchStatus& s, bool wide, std::time_t now) {
    const bool priced = std::any_of(s.trials.begin(), s.trials.end(),
                                    [](const TrialRecord& t) { return t.cost.has_value(); });
    std::vector<std::string> headers = {"TRIAL", "NAME", "STATE"};
    for (const auto& name : s.param_names) {
        headers.push_back(upper(name));
    }
    headers.push_back(upper(s.objective_metric));
    headers.push_back("DURATION");
    if (priced) {
        headers.push_back("COST");
    }
    if (wide) {
        headers.insert(headers.end(), {"STARTED", "MESSAGE"});
    }
    const std::string best = best_name(s);
    util::TextTable table(headers);
    for (const auto& t : s.trials) {
        std::vector<std::string> row = {std::to_string(t.index) + (t.name == best ? "*" : ""),
                                        t.name, kftrain::tune::trial_state_name(t.state)};
        for (const auto& name : s.param_names) {
            auto it = std::find_if(t.params.begin(), t.params.end(),
                                   [&](const auto& p) { return p.first == name; });
            row.push_back(it != t.params.end() ? it->second : "-");
        }
        row.push_back(t.objective ? kftrain::tune::format_metric(*t.objective) : "-");
        auto duration = kftrain::tune::trial_duration(t, now);
        row.push_back(duration ? util::format_duration(*duration) : "-");
        if (priced) {
            row.push_back(t.cost ? estimate::format_money(*t.cost) : "-");
        }
        if (wide) {
            row.insert(row.end(), {t.started.empty() ? "-" : t.started, t.message});
        }
        table.add_row(std::move(row));
    }
    table.print(out);
}

void print_search_table(std::ostream& out, const SearchStatus& s, bool wide, std::time_t now) {
    print_field(out, "Search", s.name);
    print_field(out, "Namespace", s.namespace_);
    print_field(out, "Backend", s.backend);
    print_field(out, "Job kind", s.job_kind);
    print_field(out, "Algorithm", s.algorithm);
    print_field(out, "State", format_state_line(s));
    print_field(out, "Objective", format_objective(s));
    print_field(out, "Trials", format_trial_counts(s));
    print_field(out, "Created", format_time_field(s.created, now));
    print_field(out, "Finished", format_time_field(s.finished, now));
    auto duration = search_duration(s, now);
    print_field(out, "Duration", duration ? util::format_duration(*duration) : "");
    if (s.cost) {
        std::string basis = s.cost_basis.empty() ? "" : ": " + s.cost_basis;
        print_field(out, "Cost", estimate::format_money(*s.cost) + basis);
    }
    if (!s.trials.empty()) {
        out << "\n";
        print_trials(out, s, wide, now);
    }
    std::string best = format_best_line(s);
    if (!best.empty()) {
        out << "\n" << best << "\n";
    }
}

json trial_to_json(const TrialRecord& t, std::time_t now) {
    json doc = search::trial_to_json(t);
    doc["durationSeconds"] = optional_json(kftrain::tune::trial_duration(t, now));
    return doc;
}

}  // namespace

job::SearchReport search_report() {
    job::SearchReport report;
    report.trial_line = format_trial_line;
    report.summary = [](std::ostream& out, const SearchStatus& status) {
        print_search(out, status, OutputFormat::Table, std::time(nullptr));
    };
    return report;
}

std::string format_trial_line(const TrialRecord& trial, const SearchStatus& status) {
    std::string line = fmt::format("trial {} {} {}", trial.index, trial.name,
                                   kftrain::tune::trial_state_name(trial.state));
    std::string params = format_params(trial);
    if (!params.empty()) {
        line += "  " + params;
    }
    if (trial.objective) {
        line += fmt::format("  {}={}", status.objective_metric,
                            kftrain::tune::format_metric(*trial.objective));
    } else if (!trial.message.empty()) {
        line += "  " + trial.message;
    }
    return line;
}

std::string format_best_line(const SearchStatus& status) {
    const TrialRecord* best = find_trial(status, best_name(status));
    if (best == nullptr || !best->objective) {
        return "";
    }
    return fmt::format("Best: trial {} ({}={}): {}", best->index, status.objective_metric,
                       kftrain::tune::format_metric(*best->objective), format_params(*best));
}

json search_to_json(const SearchStatus& s, std::time_t now) {
    json trials = json::array();
    for (const auto& t : s.trials) {
        trials.push_back(trial_to_json(t, now));
    }
    const TrialRecord* best = find_trial(s, best_name(s));
    json cost = nullptr;
    if (s.cost) {
        cost = {{"amount", *s.cost}, {"currency", s.currency}, {"basis", s.cost_basis}};
    }
    return {{"name", s.name},
            {"namespace", s.namespace_},
            {"backend", s.backend},
            {"jobKind", s.job_kind},
            {"phase", s.phase},
            {"reason", s.reason},
            {"message", s.message},
            {"algorithm", s.algorithm},
            {"objective",
             {{"metric", s.objective_metric},
              {"type", s.maximize ? "maximize" : "minimize"},
              {"goal", optional_json(s.goal)}}},
            {"maxTrials", s.max_trials},
            {"parallel", s.parallel},
            {"maxFailedTrials", s.max_failed_trials},
            {"parameters", s.param_names},
            {"bestTrial", best != nullptr ? trial_to_json(*best, now) : json(nullptr)},
            {"trials", trials},
            {"created", s.created},
            {"finished", s.finished},
            {"durationSeconds", optional_json(search_duration(s, now))},
            {"cost", cost}};
}

void print_search(std::ostream& out, const SearchStatus& status, OutputFormat format,
                  std::time_t now) {
    switch (format) {
        case OutputFormat::Table:
        case OutputFormat::Wide:
        case OutputFormat::Csv:  // neither verb offers it
            print_search_table(out, status, format == OutputFormat::Wide, now);
            return;
        case OutputFormat::Json:
            out << util::json_text(search_to_json(status, now), 2) << "\n";
            return;
        case OutputFormat::Yaml:
            print_json_as_yaml(out, search_to_json(status, now));
            return;
    }
}

}  // namespace kftrain::cli::view
