#pragma once

#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kftrain::tune {

// A trial's state, as Katib's Trial conditions name it; the local search uses the same.
enum class TrialState {
    Pending,
    Running,
    Succeeded,
    Failed,
    Killed,
    EarlyStopped,
    MetricsUnavailable
};

// Return the state's name as shown: Pending, Running, Succeeded, ...
const char* trial_state_name(TrialState state);

// Parse a Trial condition type into a state; Pending when it is none of them.
TrialState parse_trial_state(const std::string& name);

// Return whether the trial has ended (every state but Pending and Running).
bool is_trial_done(TrialState state);

// One trial of a search: the values it ran with and what it reached.
struct TrialRecord {
    int index = 0;     // 1-based, in creation order: `tune logs --trial 3`
    std::string name;  // the trial's (and its job's) name
    std::vector<std::pair<std::string, std::string>> params;  // in the search's order
    TrialState state = TrialState::Pending;
    std::optional<double> objective;        // the objective metric (best over evaluations)
    std::map<std::string, double> metrics;  // every metric seen, by the same strategy
    std::string started;                    // ISO-8601 UTC; empty if unknown
    std::string finished;
    std::string message;         // why it failed, when known
    std::optional<double> cost;  // what it cost, when priced
};

// The state of a whole search, from the cluster's Experiment or a local search's record;
// `tune status` prints it the same way for both.
struct SearchStatus {
    std::string name;
    std::string namespace_;
    std::string backend;   // kubernetes or local
    std::string job_kind;  // PyTorchJob or TrainJob: what each trial runs
    std::string phase;     // Created, Running, Succeeded, Failed, Restarting; Interrupted locally
    std::string reason;    // of the last condition: GoalReached, MaxTrialsReached, ...
    std::string message;
    std::string objective_metric;
    bool maximize = true;
    std::optional<double> goal;
    std::string algorithm;
    int max_trials = 0;
    int parallel = 0;
    int max_failed_trials = 0;
    std::vector<std::string> param_names;  // the table's columns, in the search's order
    std::vector<TrialRecord> trials;       // by index
    std::string best_trial;                // the name of the best trial; empty: none yet
    std::string created;                   // ISO-8601 UTC
    std::string finished;
    std::optional<double> cost;  // all trials together, when priced
    std::string currency;
    std::string cost_basis;  // "$0.16/h per trial (2 replicas x $0.08/h)"
};

// Return the name of the best trial with an objective (the highest when maximizing, the
// lowest otherwise; the earlier trial on a tie), or "" when none has one.
std::string best_trial(const std::vector<TrialRecord>& trials, bool maximize);

// Format a metric as tables and messages show it: up to six significant digits ("0.9712").
std::string format_metric(double value);

// Return whether a value reaches the goal (>= when maximizing, <= when minimizing).
bool reaches_goal(double value, double goal, bool maximize);

// Return the seconds a trial ran: start to finish, or to now while it runs.
std::optional<double> trial_duration(const TrialRecord& trial, std::time_t now);

}  // namespace kftrain::tune
