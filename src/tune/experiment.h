#pragma once

#include <yaml-cpp/yaml.h>

#include "manifest/job_spec.h"
#include "manifest/render/render.h"
#include "tune/tune_spec.h"
#include "util/result.h"

namespace kftrain::tune {

// Return a copy of the job with each tuned value in place: a ${trialParameters.NAME} the job
// file uses is filled (in command, args and env; ${trialParameters.trialName} with the
// trial's name, or <name>-<run> when run is given), any other name is a trainer key set to
// it, with metric lines on and a checkpoint directory of its own (<checkpointDir>/<name>, or
// <checkpointDir>/<name>-<run>: the local search's trial names repeat from one run to the
// next, and a trial must never resume an earlier run's checkpoint); name is the trial's job
// name. The local search runs trials from it; the Experiment renders its trialSpec from it
// with placeholders for the values. A job with its own command or args gets no trainer
// settings.
manifest::JobSpec trial_job_spec(const manifest::JobSpec& job,
                                 const std::vector<std::pair<std::string, std::string>>& values,
                                 const std::string& name, const std::string& run = "");

// Render the Katib Experiment (kubeflow.org/v1beta1) that runs the search on a cluster: its
// trialSpec is the job rendered by its kind's renderer (tmpl) with each tuned value a
// ${trialParameters.NAME} placeholder; the primary container, success and failure conditions
// and primary pod labels are the kind's; a StdOut collector reads the metric lines the trainer
// prints. Fails where the job's renderer fails.
util::Result<YAML::Node> render_experiment(const manifest::JobSpec& job, const TuneSpec& tune,
                                           const manifest::Template& tmpl);

}  // namespace kftrain::tune
