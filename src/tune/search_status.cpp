#include "tune/search_status.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/time_text.h"

namespace kftrain::tune {
namespace {

struct StateName {
    TrialState state;
    const char* name;
};

constexpr StateName k_state_names[] = {
    {TrialState::Pending, "Pending"},
    {TrialState::Running, "Running"},
    {TrialState::Succeeded, "Succeeded"},
    {TrialState::Failed, "Failed"},
    {TrialState::Killed, "Killed"},
    {TrialState::EarlyStopped, "EarlyStopped"},
    {TrialState::MetricsUnavailable, "MetricsUnavailable"},
};

}  // namespace

const char* trial_state_name(TrialState state) {
    for (const auto& entry : k_state_names) {
        if (entry.state == state) {
            return entry.name;
        }
    }
    return "Pending";
}

TrialState parse_trial_state(const std::string& name) {
    for (const auto& entry : k_state_names) {
        if (name == entry.name) {
            return entry.state;
        }
    }
    return TrialState::Pending;
}

bool is_trial_done(TrialState state) {
    return state != TrialState::Pending && state != TrialState::Running;
}

std::string best_trial(const std::vector<TrialRecord>& trials, bool maximize) {
    const TrialRecord* best = nullptr;
    for (const auto& trial : trials) {
        if (!trial.objective) {
            continue;
        }
        if (best == nullptr || (maximize ? *trial.objective > *best->objective
                                         : *trial.objective < *best->objective)) {
            best = &trial;
        }
    }
    return best != nullptr ? best->name : "";
}

std::string format_metric(double value) {
    return fmt::format("{:.6g}", value);
}

bool reaches_goal(double value, double goal, bool maximize) {
    return maximize ? value >= goal : value <= goal;
}

std::optional<double> trial_duration(const TrialRecord& trial, std::time_t now) {
    auto start = util::parse_timestamp(trial.started);
    if (!start) {
        return std::nullopt;
    }
    auto end = util::parse_timestamp(trial.finished);
    return std::max(0.0, std::difftime(end ? *end : now, *start));
}

}  // namespace kftrain::tune
