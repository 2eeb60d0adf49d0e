#pragma once

#include <optional>
#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "tune/param_space.h"
#include "util/result.h"

namespace kftrain::tune {

// The search algorithms kftrain offers, by Katib's algorithmName. random and grid also run
// locally; bayesianoptimization and tpe need Katib's suggestion services on a cluster.
inline const std::vector<std::string> k_algorithms = {"random", "grid", "bayesianoptimization",
                                                      "tpe"};

// Return whether `kftrain tune --local` can run an algorithm (random, grid).
bool runs_locally(const std::string& algorithm);

// The metric a search optimizes, read from each trial's evaluation.
struct Objective {
    std::string metric = "accuracy";  // what the trainer prints: accuracy or loss
    bool maximize = true;
    std::optional<double> goal;  // the search succeeds when a trial reaches it
};

// The metric names kftrain-trainer prints with metricLines: the held-out evaluation's.
inline const std::vector<std::string> k_trainer_metrics = {"accuracy", "loss"};

// A whole search: the parameters, the objective and the budget. Built from the job file's
// tune section and the flags (build_tune_spec), then checked as Katib's webhook would
// (katib_checks.h).
struct TuneSpec {
    std::string name;  // the Experiment's; default: the job's
    std::vector<Param> params;
    Objective objective;
    int max_trials = 12;
    int parallel = 3;  // Katib's default parallelTrialCount
    int max_failed_trials = 3;
    std::string algorithm = "random";
    std::vector<std::string> where;  // per param, where it was given ("--param lr", "job.yaml:31")
};

// The tune flags as typed; each set one overrides the job file's tune section.
// A string flag given empty (--algorithm "", an unset variable in a script) is an error
// naming the flag, never taken as unset.
struct TuneFlags {
    std::optional<std::string> name;
    std::vector<std::string> params;       // NAME=SPACE, each replacing the file's NAME
    std::optional<std::string> objective;  // metric[:maximize|minimize]
    std::optional<double> goal;
    std::optional<int> max_trials;
    std::optional<int> parallel;
    std::optional<int> max_failed_trials;
    std::optional<std::string> algorithm;
};

// Parse "--objective" text: metric[:maximize|minimize]; accuracy is maximized and loss
// minimized when no direction is given. where names the flag or key in messages.
util::Result<Objective> parse_objective(const std::string& text, const std::string& where);

// Build the search from the job file's tune section and the flags. Errors name the flag or
// the job file's key and the value; parameters must exist (at least one).
util::Result<TuneSpec> build_tune_spec(const manifest::JobSpec& job, const TuneFlags& flags);

}  // namespace kftrain::tune
