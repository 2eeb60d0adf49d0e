#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "job/status.h"
#include "tune/search_status.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// Reading a Katib Experiment (kubeflow.org/v1beta1) and its Trials as kubectl prints them
// with -o json: pure functions, so `tune status` shows a cluster's search as it shows a
// local one. Fields of another type or missing are read as empty; nothing throws.

// A search as the cluster holds it: its state and, per trial, the job the trial runs.
struct ClusterSearch {
    kftrain::tune::SearchStatus status;
    // Parallel to status.trials: each trial's job as the job readers read it (its runSpec,
    // else the trial template) with the trial's name for the job's, and its times.
    std::vector<job::JobStatus> trial_jobs;
    // The trial template's job (spec.trialTemplate.trialSpec); nullopt when it is no
    // PyTorchJob or TrainJob.
    std::optional<job::JobStatus> template_job;
};

// Return a Trial's state: its last condition whose status is "True" (Created alone is
// Pending); a Succeeded condition that is "False" for want of metrics, as older Katib
// versions write it, is MetricsUnavailable.
kftrain::tune::TrialState trial_state(const nlohmann::json& trial);

// Return the value of a Katib metric string ("0.9712"); nullopt for "unavailable" and
// anything else that is not a finite number.
std::optional<double> metric_value(const nlohmann::json& value);

// Return the name of the job a Trial runs: its runSpec's metadata.name (Katib names it
// after the trial), else the trial's own name.
std::string trial_job_name(const nlohmann::json& trial);

// Read an Experiment and its Trials (in any order) into a search: the phase is the last
// true condition (Created when none is), the trials are sorted by creation time (then name)
// and numbered from 1, each trial's objective is taken from its observation by the
// objective's metric strategy (spec.objective.metricStrategies, else max when maximizing
// and min when minimizing).
ClusterSearch cluster_search_from(const nlohmann::json& experiment,
                                  const std::vector<const nlohmann::json*>& trials);

// Read the text of `kubectl get experiments.kubeflow.org NAME -o json` and of `kubectl get
// trials.kubeflow.org -l katib.kubeflow.org/experiment=NAME -o json` (a List) into a
// search; an error with exit code 4 when either is not what kubectl prints.
util::Result<ClusterSearch> read_cluster_search(const std::string& experiment_text,
                                                const std::string& trials_text);

}  // namespace kftrain::backend::kube
