#pragma once

#include <yaml-cpp/yaml.h>

#include "tune/tune_spec.h"
#include "util/result.h"

namespace kftrain::tune {

// Check a search as Katib's Experiment webhook would, before anything is submitted or started:
// the name (a DNS label of at most 40 characters), the counts (maxTrials > 0, parallel > 0,
// maxFailedTrials >= 0, neither above maxTrials), the objective's goal (a fraction for
// accuracy), and, for grid, what Katib's grid suggestion requires (a step on every range of
// doubles, no more trials than grid points). The message names the flag or key and the value.
util::Status check_tune_spec(const TuneSpec& spec);

// Check a rendered Experiment's trial template as Katib's webhook does: every trialParameter has
// a name and a reference, names and references are unique, each reference is a parameter of
// spec.parameters or trial metadata (${trialSpec.Name}), each appears as
// ${trialParameters.NAME} in the trialSpec and no other placeholder does, the trialSpec has no
// metadata.name or metadata.namespace but has apiVersion and kind, and the primary container,
// success and failure conditions are set.
util::Status check_experiment(const YAML::Node& experiment);

}  // namespace kftrain::tune
