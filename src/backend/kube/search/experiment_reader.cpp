#include "backend/kube/search/experiment_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "backend/kube/job_reader.h"
#include "backend/kube/json_fields.h"
#include "job/exit_codes.h"
#include "manifest/job_kind.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

using backend::kube::member;
using backend::kube::string_at;
using kftrain::tune::TrialRecord;
using kftrain::tune::TrialState;
using nlohmann::json;

// The last condition whose status is "True"; null when none is.
const json* last_true_condition(const json& conditions) {
    if (!conditions.is_array()) {
        return nullptr;
    }
    for (auto it = conditions.rbegin(); it != conditions.rend(); ++it) {
        if (string_at(*it, "status") == "True") {
            return &*it;
        }
    }
    return nullptr;
}

// A count of the spec (maxTrialCount, ...); 0 when absent or not a whole number.
int count_at(const json& spec, const char* key) {
    const json& value = member(spec, key);
    if (!value.is_number_integer()) {
        return 0;
    }
    const auto count = value.get<long long>();
    return static_cast<int>(std::clamp<long long>(count, 0, 1'000'000'000));
}

// How a metric's value is taken from an observation: "min", "max" or "latest".
struct Strategies {
    std::vector<std::pair<std::string, std::string>> by_metric;  // spec.objective.metricStrategies
    std::string fallback;                                        // by the objective's direction

    const std::string& of(const std::string& metric) const {
        for (const auto& [name, value] : by_metric) {
            if (name == metric) {
                return value;
            }
        }
        return fallback;
    }
};

Strategies read_strategies(const json& objective, bool maximize) {
    Strategies strategies;
    strategies.fallback = maximize ? "max" : "min";
    const json& listed = member(objective, "metricStrategies");
    if (listed.is_array()) {
        for (const auto& strategy : listed) {
            const std::string value = string_at(strategy, "value");
            if (value == "min" || value == "max" || value == "latest") {
                strategies.by_metric.emplace_back(string_at(strategy, "name"), value);
            }
        }
    }
    return strategies;
}

// A metric's value by a strategy; Katib falls back to the latest when min or max is
// unavailable.
std::optional<double> observed(const json& metric, const std::string& strategy) {
    if (strategy != "latest") {
        if (auto value = metric_value(member(metric, strategy.c_str()))) {
            return value;
        }
    }
    return metric_value(member(metric, "latest"));
}

void read_observation(const json& trial, const Strategies& strategies, const std::string& objective,
                      TrialRecord& record) {
    const json& metrics = member(member(member(trial, "status"), "observation"), "metrics");
    if (!metrics.is_array()) {
        return;
    }
    for (const auto& metric : metrics) {
        const std::string name = string_at(metric, "name");
        if (name.empty()) {
            continue;
        }
        auto value = observed(metric, strategies.of(name));
        if (!value) {
            continue;
        }
        record.metrics[name] = *value;
        if (name == objective) {
            record.objective = value;
        }
    }
}

// The trial's values, in the search's parameter order; any the search does not name after.
void read_assignments(const json& trial, const std::vector<std::string>& names,
                      TrialRecord& record) {
    const json& assignments = member(member(trial, "spec"), "parameterAssignments");
    if (!assignments.is_array()) {
        return;
    }
    std::vector<std::pair<std::string, std::string>> given;
    for (const auto& assignment : assignments) {
        given.emplace_back(string_at(assignment, "name"), string_at(assignment, "value"));
    }
    for (const auto& name : names) {
        auto it = std::find_if(given.begin(), given.end(),
                               [&](const auto& pair) { return pair.first == name; });
        if (it != given.end()) {
            record.params.push_back(*it);
        }
    }
    for (const auto& pair : given) {
        if (std::find(names.begin(), names.end(), pair.first) == names.end()) {
            record.params.push_back(pair);
        }
    }
}

// Why a trial ended as it did, for the states that need saying.
std::string end_message(const json& trial, TrialState state) {
    if (state == TrialState::Pending || state == TrialState::Running ||
        state == TrialState::Succeeded) {
        return "";
    }
    const json& conditions = member(member(trial, "status"), "conditions");
    const json* condition = last_true_condition(conditions);
    const bool old_style =
        state == TrialState::MetricsUnavailable &&
        (condition == nullptr || string_at(*condition, "type") != "MetricsUnavailable");
    if (old_style && conditions.is_array()) {  // a Succeeded condition that is "False"
        for (const auto& candidate : conditions) {
            if (string_at(candidate, "type") == "Succeeded") {
                condition = &candidate;
            }
        }
    }
    return condition == nullptr ? "" : string_at(*condition, "message");
}

// The job a trial runs, read by its kind's reader; nullopt when it is neither kind.
std::optional<job::JobStatus> job_of(const json& object) {
    auto kind = manifest::parse_kind(string_at(object, "kind"));
    if (!kind || !object.is_object()) {
        return std::nullopt;
    }
    return backend::kube::job_reader(*kind).status_from(object);
}

// The job a trial runs, with the trial's name and times.
job::JobStatus trial_job(const json& trial, const std::optional<job::JobStatus>& template_job,
                         const TrialRecord& record) {
    auto own = job_of(member(member(trial, "spec"), "runSpec"));
    job::JobStatus status = own ? *own : template_job.value_or(job::JobStatus{});
    status.backend = manifest::k_backend_kubernetes;
    status.name = trial_job_name(trial);
    status.namespace_ = string_at(member(trial, "metadata"), "namespace");
    status.created = string_at(member(trial, "metadata"), "creationTimestamp");
    status.started = record.started;
    status.finished = record.finished;
    status.phase = record.state == TrialState::Succeeded        ? job::JobPhase::Succeeded
                   : kftrain::tune::is_trial_done(record.state) ? job::JobPhase::Failed
                   : record.state == TrialState::Running        ? job::JobPhase::Running
                                                                : job::JobPhase::Created;
    return status;
}

void read_spec(const json& spec, kftrain::tune::SearchStatus& status) {
    const json& objective = member(spec, "objective");
    status.objective_metric = string_at(objective, "objectiveMetricName");
    status.maximize = string_at(objective, "type") != "minimize";
    if (const json& goal = member(objective, "goal"); goal.is_number()) {
        status.goal = goal.get<double>();
    }
    status.algorithm = string_at(member(spec, "algorithm"), "algorithmName");
    status.max_trials = count_at(spec, "maxTrialCount");
    status.parallel = count_at(spec, "parallelTrialCount");
    status.max_failed_trials = count_at(spec, "maxFailedTrialCount");
    const json& parameters = member(spec, "parameters");
    if (parameters.is_array()) {
        for (const auto& parameter : parameters) {
            std::string name = string_at(parameter, "name");
            if (!name.empty()) {
                status.param_names.push_back(std::move(name));
            }
        }
    }
    status.job_kind = string_at(member(member(spec, "trialTemplate"), "trialSpec"), "kind");
}

void read_state(const json& experiment, kftrain::tune::SearchStatus& status) {
    const json& experiment_status = member(experiment, "status");
    status.phase = "Created";  // it exists, whether or not Katib has said so yet
    if (const json* condition = last_true_condition(member(experiment_status, "conditions"))) {
        status.phase = string_at(*condition, "type");
        status.reason = string_at(*condition, "reason");
        status.message = string_at(*condition, "message");
    }
    status.finished = string_at(experiment_status, "completionTime");
    status.best_trial =
        string_at(member(experiment_status, "currentOptimalTrial"), "bestTrialName");
}

// The trials in creation order (then by name: Katib creates a batch in the same second).
std::vector<const json*> in_creation_order(const std::vector<const json*>& trials) {
    std::vector<const json*> sorted;
    for (const json* trial : trials) {
        if (trial != nullptr && trial->is_object()) {
            sorted.push_back(trial);
        }
    }
    auto key = [](const json* trial) {
        const json& metadata = member(*trial, "metadata");
        return std::make_pair(string_at(metadata, "creationTimestamp"),
                              string_at(metadata, "name"));
    };
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](const json* a, const json* b) { return key(a) < key(b); });
    return sorted;
}

}  // namespace

TrialState trial_state(const json& trial) {
    const json& conditions = member(member(trial, "status"), "conditions");
    if (const json* condition = last_true_condition(conditions)) {
        const std::string type = string_at(*condition, "type");
        if (type != "Created") {
            return kftrain::tune::parse_trial_state(type);
        }
    }
    if (conditions.is_array()) {
        for (const auto& condition : conditions) {
            if (string_at(condition, "type") == "Succeeded" &&
                string_at(condition, "status") == "False" &&
                string_at(condition, "reason").rfind("MetricsUnavailable", 0) == 0) {
                return TrialState::MetricsUnavailable;
            }
        }
    }
    return TrialState::Pending;
}

std::optional<double> metric_value(const json& value) {
    if (value.is_number()) {
        const double number = value.get<double>();
        return std::isfinite(number) ? std::optional<double>(number) : std::nullopt;
    }
    if (!value.is_string()) {
        return std::nullopt;
    }
    return util::parse_number(value.get_ref<const std::string&>(), false);
}

std::string trial_job_name(const json& trial) {
    std::string name =
        string_at(member(member(member(trial, "spec"), "runSpec"), "metadata"), "name");
    return name.empty() ? string_at(member(trial, "metadata"), "name") : name;
}

ClusterSearch cluster_search_from(const json& experiment, const std::vector<const json*>& trials) {
    ClusterSearch search;
    auto& status = search.status;
    status.backend = manifest::k_backend_kubernetes;
    const json& metadata = member(experiment, "metadata");
    status.name = string_at(metadata, "name");
    status.namespace_ = string_at(metadata, "namespace");
    status.created = string_at(metadata, "creationTimestamp");
    const json& spec = member(experiment, "spec");
    read_spec(spec, status);
    read_state(experiment, status);
    search.template_job = job_of(member(member(spec, "trialTemplate"), "trialSpec"));
    const Strategies strategies = read_strategies(member(spec, "objective"), status.maximize);
    int index = 0;
    for (const json* trial : in_creation_order(trials)) {
        TrialRecord record;
        record.index = ++index;
        record.name = string_at(member(*trial, "metadata"), "name");
        read_assignments(*trial, status.param_names, record);
        record.state = trial_state(*trial);
        read_observation(*trial, strategies, status.objective_metric, record);
        const json& trial_status = member(*trial, "status");
        // Katib stamps a Trial's startTime when it creates it; a Pending trial has no job yet,
        // so it has run no time and cost nothing.
        if (record.state != TrialState::Pending) {
            record.started = string_at(trial_status, "startTime");
        }
        record.finished = string_at(trial_status, "completionTime");
        record.message = end_message(*trial, record.state);
        search.trial_jobs.push_back(trial_job(*trial, search.template_job, record));
        status.trials.push_back(std::move(record));
    }
    return search;
}

util::Result<ClusterSearch> read_cluster_search(const std::string& experiment_text,
                                                const std::string& trials_text) {
    auto experiment = backend::kube::parse_json_object(experiment_text);
    if (!experiment) {
        return experiment.error_value();
    }
    const std::string kind = string_at(*experiment, "kind");
    if (kind != "Experiment") {
        return util::error(
            fmt::format("kubectl returned {} where an Experiment was expected",
                        kind.empty() ? std::string("an object without a kind") : "a " + kind),
            k_exit_cluster);
    }
    auto listed = backend::kube::parse_json_object(trials_text);
    if (!listed) {
        return util::error("its trials: " + listed.error(), k_exit_cluster);
    }
    const json& items = member(*listed, "items");
    if (!items.is_array()) {
        return util::error("its trials: kubectl printed a list without items", k_exit_cluster);
    }
    std::vector<const json*> trials;
    for (const auto& item : items) {
        if (string_at(item, "kind") == "Trial" || string_at(item, "kind").empty()) {
            trials.push_back(&item);
        }
    }
    return cluster_search_from(*experiment, trials);
}

}  // namespace kftrain::backend::kube
