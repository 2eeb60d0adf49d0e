#include "tune/tune_spec.h"

#include <fmt/format.h>

#include <algorithm>

#include "manifest/suggest.h"
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

util::Status read_params(const manifest::JobSpec& job, const TuneFlags& flags, TuneSpec& spec) {
    for (const auto& [name, space] : job.tune.params) {
        const std::string where = job.source.locate("tune.params." + name);
        auto param = parse_param(name, space, where);
        if (!param) {
            return param.error_value();
        }
        put_param(spec, std::move(*param), where);
    }
    for (const auto& text : flags.params) {
        auto param = parse_param_flag(text);
        if (!param) {
            return param.error_value();
        }
        put_param(spec, std::move(*param), "--param " + text);
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

util::Result<Objective> parse_objective(const std::string& text, const std::string& where) {
    Objective objective;
    const auto colon = text.find(':');
    objective.metric = text.substr(0, colon);
    if (objective.metric.empty()) {
        return error(
            fmt::format("{}: no metric name in \"{}\"; e.g. accuracy:maximize", where, text));
    }
    if (!is_one_of(objective.metric, k_trainer_metrics)) {
        return error(
            fmt::format("{}: kftrain-trainer reports {} from its held-out evaluation "
                        "(got \"{}\"){}",
                        where, fmt::join(k_trainer_metrics, " and "), objective.metric,
                        manifest::did_you_mean(objective.metric, k_trainer_metrics)));
    }
    objective.maximize = objective.metric != "loss";
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
    if (!job.command.empty() || job.args) {
        return error(fmt::format(
            "{}: tune passes the tried values to kftrain-trainer as its flags, so a job with its "
            "own command or args cannot be tuned; use the trainer section instead",
            job.source.locate(job.command.empty() ? "args" : "command")));
    }
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
                            objective_flag ? "--objective" : job.source.locate("tune.objective"));
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
