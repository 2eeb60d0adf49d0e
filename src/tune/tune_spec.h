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

// The trial parameter that carries each trial's own name (Katib's ${trialSpec.Name}): it names
// the trial's job in its labels and gives every trial its own checkpoint directory; a job file
// may use ${trialParameters.trialName} too, undeclared.
inline constexpr const char* k_trial_name_parameter = "trialName";

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

// Return whether the job runs a program of its own (it sets command or args): its tuned values
// are the ${trialParameters.NAME} placeholders it uses, and it prints its own metrics. Without
// either it runs kftrain-trainer, whose settings are tuned.
bool runs_own_program(const manifest::JobSpec& job);

// Parse "--objective" text: metric[:maximize|minimize]; accuracy is maximized and loss
// minimized when no direction is given. kftrain-trainer reports accuracy and loss; a program of
// its own (own_program) any metric its NAME=VALUE lines or progress lines print, a name other
// than accuracy or loss with its direction. where names the flag or key in messages.
util::Result<Objective> parse_objective(const std::string& text, const std::string& where,
                                        bool own_program = false);

// Build the search from the job file's tune section and the flags. Errors name the flag or
// the job file's key and the value; parameters must exist (at least one). A parameter whose
// name the job file uses as ${trialParameters.NAME} (in command, args or env) fills that
// placeholder; any other is a trainer key, which only a kftrain-trainer job (no command or
// args of its own) has. Every placeholder must be declared, as Katib's webhook requires.
util::Result<TuneSpec> build_tune_spec(const manifest::JobSpec& job, const TuneFlags& flags);

}  // namespace kftrain::tune
