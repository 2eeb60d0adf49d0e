#include "tune/experiment.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "manifest/job_kind.h"
#include "manifest/schema.h"
#include "manifest/trial_parameters.h"
#include "manifest/yaml/emit.h"
#include "tune/metric_lines.h"

namespace kftrain::tune {
namespace {

using manifest::JobKind;
using manifest::string_node;

// What Katib needs to know of each kind to run it as a trial: Katib's own defaults for the
// kind (katib pkg/apis/controller/experiments/v1beta1/constants.go), written out so the
// Experiment says what it does.
struct TrialKind {
    const char* container;  // the container whose output the metrics collector reads
    const char* success;    // GJSON conditions over the job's status
    const char* failure;
    std::vector<std::pair<const char*, const char*>> primary_pod_labels;
};

TrialKind trial_kind(JobKind kind) {
    if (kind == JobKind::TrainJob) {
        // Only node 0 (rank 0) prints metric lines: collecting from the other nodes would find
        // none and mark the trial MetricsUnavailable.
        return {"node",
                R"(status.conditions.#(type=="Complete")#|#(status=="True")#)",
                R"(status.conditions.#(type=="Failed")#|#(status=="True")#)",
                {{"jobset.sigs.k8s.io/replicatedjob-name", "node"},
                 {"batch.kubernetes.io/job-completion-index", "0"}}};
    }
    // The Training Operator labels its master-role pod (the Master, or a JAXJob's Worker 0).
    return {manifest::operator_kind(kind).container,
            R"(status.conditions.#(type=="Succeeded")#|#(status=="True")#)",
            R"(status.conditions.#(type=="Failed")#|#(status=="True")#)",
            {{"training.kubeflow.org/job-role", "master"}}};
}

std::string placeholder(const std::string& name) {
    return "${trialParameters." + name + "}";
}

void set_trainer(manifest::JobSpec& spec, const std::string& key, const std::string& value) {
    for (auto& [name, current] : spec.trainer) {
        if (name == key) {
            current = value;
            return;
        }
    }
    spec.trainer.emplace_back(key, value);
}

YAML::Node parameter_node(const Param& param) {
    YAML::Node node;
    node["name"] = string_node(param.name);
    node["parameterType"] = string_node(param_type_name(param.type));
    YAML::Node space;
    if (param.type == ParamType::Discrete || param.type == ParamType::Categorical) {
        for (const auto& value : param.list) {
            space["list"].push_back(string_node(value));
        }
    } else {
        space["min"] = string_node(param.min);
        space["max"] = string_node(param.max);
        if (!param.step.empty()) {
            space["step"] = string_node(param.step);
        }
        space["distribution"] = string_node(param.log ? "logUniform" : "uniform");
    }
    node["feasibleSpace"] = space;
    return node;
}

YAML::Node trial_parameter(const std::string& name, const std::string& description,
                           const std::string& reference) {
    YAML::Node node;
    node["name"] = string_node(name);
    node["description"] = string_node(description);
    node["reference"] = string_node(reference);
    return node;
}

YAML::Node objective_node(const Objective& objective, bool own_program) {
    YAML::Node node;
    node["type"] = string_node(objective.maximize ? "maximize" : "minimize");
    if (objective.goal) {
        node["goal"] = YAML::Node(fmt::format("{}", *objective.goal));  // as typed: 0.99
    }
    node["objectiveMetricName"] = string_node(objective.metric);
    // A program of its own prints what it prints: asking for kftrain-trainer's metrics would
    // only record them unavailable. Katib needs the objective alone.
    for (const auto& metric : own_program ? std::vector<std::string>{} : k_trainer_metrics) {
        if (metric != objective.metric) {
            node["additionalMetricNames"].push_back(string_node(metric));
        }
    }
    return node;
}

YAML::Node trial_template(const manifest::JobSpec& job, const TuneSpec& tune, YAML::Node spec) {
    const TrialKind kind = trial_kind(job.kind);
    YAML::Node node;
    node["primaryContainerName"] = string_node(kind.container);
    for (const auto& [key, value] : kind.primary_pod_labels) {
        node["primaryPodLabels"][key] = string_node(value);
    }
    node["successCondition"] = string_node(kind.success);
    node["failureCondition"] = string_node(kind.failure);
    node["trialParameters"].push_back(trial_parameter(
        k_trial_name_parameter, "the trial's name: its job's label and checkpoint directory",
        "${trialSpec.Name}"));
    for (const auto& param : tune.params) {
        const auto* def = manifest::find_field("trainer." + param.name);
        const std::string description =
            param.placeholder
                ? fmt::format("{}: a value of the job's own command, args or env", param.name)
                : fmt::format("trainer.{}: {}", param.name, def ? def->doc : "");
        node["trialParameters"].push_back(trial_parameter(param.name, description, param.name));
    }
    spec["metadata"].remove("name");
    spec["metadata"].remove("namespace");
    node["trialSpec"] = spec;
    return node;
}

}  // namespace

manifest::JobSpec trial_job_spec(const manifest::JobSpec& job,
                                 const std::vector<std::pair<std::string, std::string>>& values,
                                 const std::string& name, const std::string& run) {
    manifest::JobSpec trial = job;
    trial.name = name;
    // build_tune_spec has refused a malformed placeholder; none is filled then.
    const auto used = manifest::find_placeholders(job);
    const std::string unique = name + (run.empty() ? "" : "-" + run);
    std::map<std::string, std::string> fill = {{k_trial_name_parameter, unique}};
    for (const auto& [key, value] : values) {
        const bool placeholder =
            used && std::any_of(used->begin(), used->end(),
                                [&](const manifest::Placeholder& p) { return p.name == key; });
        if (placeholder) {
            fill[key] = value;  // placeholders win over trainer keys
        } else {
            set_trainer(trial, key, value);
        }
    }
    trial = manifest::fill_placeholders(trial, fill);
    if (runs_own_program(job)) {
        return trial;  // its own program: kftrain-trainer's settings do not apply
    }
    set_trainer(trial, "metricLines", "true");
    std::string checkpoints = job.trainer_value("checkpointDir", "");
    if (!checkpoints.empty()) {
        while (checkpoints.size() > 1 && checkpoints.back() == '/') {
            checkpoints.pop_back();
        }
        set_trainer(trial, "checkpointDir", checkpoints + "/" + unique);
    }
    return trial;
}

util::Result<YAML::Node> render_experiment(const manifest::JobSpec& job, const TuneSpec& tune,
                                           const manifest::Template& tmpl) {
    std::vector<std::pair<std::string, std::string>> values;
    for (const auto& param : tune.params) {
        values.emplace_back(param.name, placeholder(param.name));
    }
    auto rendered = manifest::render_job(
        trial_job_spec(job, values, placeholder(k_trial_name_parameter)), tmpl);
    if (!rendered) {
        return rendered.error_value();
    }
    YAML::Node experiment;
    experiment["apiVersion"] = string_node("kubeflow.org/v1beta1");
    experiment["kind"] = string_node("Experiment");
    experiment["metadata"]["name"] = string_node(tune.name);
    experiment["metadata"]["namespace"] = string_node(job.namespace_);
    for (const auto& [key, value] : job.labels) {
        experiment["metadata"]["labels"][key] = string_node(value);
    }
    YAML::Node spec;
    spec["objective"] = objective_node(tune.objective, runs_own_program(job));
    spec["algorithm"]["algorithmName"] = string_node(tune.algorithm);
    spec["parallelTrialCount"] = tune.parallel;
    spec["maxTrialCount"] = tune.max_trials;
    spec["maxFailedTrialCount"] = tune.max_failed_trials;
    for (const auto& param : tune.params) {
        spec["parameters"].push_back(parameter_node(param));
    }
    spec["metricsCollectorSpec"]["collector"]["kind"] = string_node("StdOut");
    for (const char* filter : k_metrics_filters) {
        spec["metricsCollectorSpec"]["source"]["filter"]["metricsFormat"].push_back(
            string_node(filter));
    }
    spec["trialTemplate"] = trial_template(job, tune, *rendered);
    experiment["spec"] = spec;
    return experiment;
}

}  // namespace kftrain::tune
