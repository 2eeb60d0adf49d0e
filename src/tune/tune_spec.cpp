#include "tune/tune_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "manifest/suggest.h"
#include "manifest/trial_parameters.h"
#include "tune/suggest.h"

namespace kftrain::tune {
namespace {

using util::error;

bool is_one_of(const std::string& value, const std::vector<std::string>& choices) {
    return std::find(choices.begin(), choices.end(), value) != choices.end();
}

// Add a parameter, replacing one of the same name (a flag overrides the job file).
void put_param(TuneSpec& spec, Param param, std::string where) {
    for (std::size_t i = 0; i < spec.params.size(); ++i) {
        if (spec.params[i].name == param.name) {
            spec.params[i] = std::move(param);
            spec.where[i] = std::move(where);
            return;
        }
    }
    spec.params.push_back(std::move(param));
    spec.where.push_back(std::move(where));
}

bool uses(const std::vector<manifest::Placeholder>& placeholders, const std::string& name) {
    return std::any_of(placeholders.begin(), placeholders.end(),
                       [&](const manifest::Placeholder& p) { return p.name == name; });
}

// Parse one parameter: a placeholder the job file uses, else a trainer key where the job runs
// kftrain-trainer.
util::Result<Param> resolve_param(const manifest::JobSpec& job,
                                  const std::vector<manifest::Placeholder>& placeholders,
                                  const std::string& name, const std::string& space,
                                  const std::string& where) {
    if (name == k_trial_name_parameter) {
        return error(fmt::format(
            "{}: {} is the trial's own name (Katib's ${{trialSpec.Name}}), which kftrain fills "
            "in; choose another name",
            where, name));
    }
    if (uses(placeholders, name)) {
        return parse_placeholder_param(name, space, where);
    }
    if (runs_own_program(job)) {
        std::vector<std::string> used;
        for (const auto& p : placeholders) {
            used.push_back(manifest::placeholder_text(p.name));
        }
        return error(fmt::format(
            "{}: the job file uses no {} in command, args or env (it uses {}); a job with its "
            "own command is tuned through the placeholders it uses",
            where, manifest::placeholder_text(name),
            used.empty() ? std::string("none") : fmt::format("{}", fmt::join(used, ", "))));
    }
    return parse_param(name, space, where);
}

// Refuse a placeholder no parameter declares: Katib's webhook would refuse the Experiment, and
// a local trial would run with the placeholder's text as its value.
util::Status check_declared(const manifest::JobSpec& job,
                            const std::vector<manifest::Placeholder>& placeholders,
                            const TuneSpec& spec) {
    for (const auto& p : placeholders) {
        const bool declared = p.name == k_trial_name_parameter ||
                              std::any_of(spec.params.begin(), spec.params.end(),
                                          [&](const Param& param) { return param.name == p.name; });
        if (!declared) {
            return error(fmt::format(
                "{}: {} is not declared: add --param {}=SPACE (or "
                "tune.params.{}), SPACE MIN:MAX[:log][:step=S] or a list A,B,C",
                job.source.locate(p.field), manifest::placeholder_text(p.name), p.name, p.name));
        }
    }
    return util::ok_status();
}

util::Status read_params(const manifest::JobSpec& job, const TuneFlags& flags, TuneSpec& spec) {
    auto placeholders = manifest::find_placeholders(job);
    if (!placeholders) {
        return placeholders.error_value();
    }
    for (const auto& [name, space] : job.tune.params) {
        const std::string where = job.source.locate("tune.params." + name);
        auto param = resolve_param(job, *placeholders, name, space, where);
        if (!param) {
            return param.error_value();
        }
        put_param(spec, std::move(*param), where);
    }
    for (const auto& text : flags.params) {
        auto split = split_param_flag(text);
        if (!split) {
            return split.error_value();
        }
        const std::string where = "--param " + text;
        auto param = resolve_param(job, *placeholders, split->first, split->second, where);
        if (!param) {
            return param.error_value();
        }
        put_param(spec, std::move(*param), where);
    }
    if (auto declared = check_declared(job, *placeholders, spec); !declared) {
        return declared;
    }
    if (spec.params.empty()) {
        return error(
            "tune: nothing to search: give --param NAME=SPACE (e.g. --param lr=0.001:0.1:log) "
            "or tune.params in the job file");
    }
    return util::ok_status();
}

// Return the flag's value when set, else the job file's, else the default.
int pick(const std::optional<int>& flag, const std::optional<int>& file, int fallback) {
    return flag.value_or(file.value_or(fallback));
}

util::Status read_algorithm(const manifest::JobSpec& job, const TuneFlags& flags, TuneSpec& spec) {
    if (flags.algorithm) {
        const std::string& algorithm = *flags.algorithm;
        if (!is_one_of(algorithm, k_algorithms)) {
            return error(fmt::format("--algorithm: must be one of {} (got \"{}\"){}",
                                     fmt::join(k_algorithms, ", "), algorithm,
                                     manifest::did_you_mean(algorithm, k_algorithms)));
        }
        spec.algorithm = algorithm;
    } else if (!job.tune.algorithm.empty()) {
        spec.algorithm = job.tune.algorithm;  // the schema checked it
    }
    return util::ok_status();
}

// Return the trials a search runs when none are asked for: the default, or fewer for a grid
// with fewer points (it tries each once). A grid that cannot be counted keeps the default,
// and check_grid says why.
int default_max_trials(const TuneSpec& spec, int fallback) {
    if (spec.algorithm != "grid") {
        return fallback;
    }
    auto size = grid_size(spec.params);
    return size && *size > 0 && *size < fallback ? static_cast<int>(*size) : fallback;
}

}  // namespace

bool runs_locally(const std::string& algorithm) {
    return algorithm == "random" || algorithm == "grid";
}

bool runs_own_program(const manifest::JobSpec& job) {
    return !job.command.empty() || job.args.has_value();
}

util::Result<Objective> parse_objective(const std::string& text, const std::string& where,
                                        bool own_program) {
    Objective objective;
    const auto colon = text.find(':');
    objective.metric = text.substr(0, colon);
    if (objective.metric.empty()) {
        return error(
            fmt::format("{}: no metric name in \"{}\"; e.g. accuracy:maximize", where, text));
    }
    const bool known = is_one_of(objective.metric, k_trainer_metrics);
    if (!own_program && !known) {
        return error(
            fmt::format("{}: kftrain-trainer reports {} from its held-out evaluation "
                        "(got \"{}\"){}",
                        where, fmt::join(k_trainer_metrics, " and "), objective.metric,
                        manifest::did_you_mean(objective.metric, k_trainer_metrics)));
    }
    // Katib's StdOut collector reads NAME=VALUE with NAME of word characters, '-' and '|'.
    const bool metric_name =
        std::all_of(objective.metric.begin(), objective.metric.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '|';
        });
    if (!metric_name) {
        return error(fmt::format(
            "{}: \"{}\": a metric's name is letters, digits, '_' and '-', as in the NAME=VALUE "
            "lines Katib's collector reads",
            where, objective.metric));
    }
    objective.maximize = objective.metric != "loss";
    if (colon == std::string::npos && !known) {
        return error(
            fmt::format("{}: say whether to maximize or minimize {}: {}:maximize or "
                        "{}:minimize",
                        where, objective.metric, objective.metric, objective.metric));
    }
    if (colon != std::string::npos) {
        const std::string direction = text.substr(colon + 1);
        if (direction != "maximize" && direction != "minimize") {
            return error(fmt::format("{}: the direction must be maximize or minimize (got \"{}\")",
                                     where, direction));
        }
        objective.maximize = direction == "maximize";
    }
    return objective;
}

util::Result<TuneSpec> build_tune_spec(const manifest::JobSpec& job, const TuneFlags& flags) {
    if (flags.name && flags.name->empty()) {
        return error("--name: must be a search name, a DNS-1035 label (got \"\")");
    }
    if (flags.objective && flags.objective->empty()) {
        return error(
            "--objective: must be metric[:maximize|minimize], e.g. accuracy:maximize "
            "(got \"\")");
    }
    TuneSpec spec;
    spec.name = flags.name ? *flags.name : !job.tune.name.empty() ? job.tune.name : job.name;
    if (auto params = read_params(job, flags, spec); !params) {
        return params.error_value();
    }
    const bool objective_flag = flags.objective.has_value();
    if (objective_flag || !job.tune.objective.empty()) {
        auto objective =
            parse_objective(objective_flag ? *flags.objective : job.tune.objective,
                            objective_flag ? "--objective" : job.source.locate("tune.objective"),
                            runs_own_program(job));
        if (!objective) {
            return objective.error_value();
        }
        spec.objective = *objective;
    }
    spec.objective.goal = flags.goal ? flags.goal : job.tune.goal;
    if (auto algorithm = read_algorithm(job, flags, spec); !algorithm) {
        return algorithm.error_value();
    }
    spec.max_trials =
        pick(flags.max_trials, job.tune.max_trials, default_max_trials(spec, spec.max_trials));
    // A default never exceeds the trials asked for (--max-trials 2 runs 2 at once); only a
    // count the user gave can be refused for that.
    const int trials_cap = std::max(spec.max_trials, 1);
    spec.parallel = pick(flags.parallel, job.tune.parallel, std::min(spec.parallel, trials_cap));
    spec.max_failed_trials = pick(flags.max_failed_trials, job.tune.max_failed_trials,
                                  std::min(spec.max_failed_trials, trials_cap));
    return spec;
}

}  // namespace kftrain::tune
