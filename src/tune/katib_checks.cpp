#include "tune/katib_checks.h"

#include <fmt/format.h>

#include <cmath>
#include <regex>
#include <set>

#include "manifest/validate.h"
#include "manifest/yaml/emit.h"
#include "tune/suggest.h"

namespace kftrain::tune {
namespace {

using util::error;

constexpr std::size_t k_longest_name = 40;  // Katib's limit: trials and jobs add a suffix

util::Status check_counts(const TuneSpec& spec) {
    if (spec.max_trials <= 0) {
        return error(fmt::format("--max-trials (tune.maxTrials): must be greater than 0 (got {})",
                                 spec.max_trials));
    }
    if (spec.parallel <= 0) {
        return error(fmt::format("--parallel (tune.parallel): must be greater than 0 (got {})",
                                 spec.parallel));
    }
    if (spec.max_failed_trials < 0) {
        return error(fmt::format(
            "--max-failed-trials (tune.maxFailedTrials): must not be less than 0 (got {})",
            spec.max_failed_trials));
    }
    if (spec.parallel > spec.max_trials) {
        return error(
            fmt::format("--parallel (tune.parallel) {}: must be at most --max-trials "
                        "(tune.maxTrials) {}",
                        spec.parallel, spec.max_trials));
    }
    if (spec.max_failed_trials > spec.max_trials) {
        return error(
            fmt::format("--max-failed-trials (tune.maxFailedTrials) {}: must be at most "
                        "--max-trials (tune.maxTrials) {}",
                        spec.max_failed_trials, spec.max_trials));
    }
    return util::ok_status();
}

util::Status check_grid(const TuneSpec& spec) {
    for (std::size_t i = 0; i < spec.params.size(); ++i) {
        const Param& param = spec.params[i];
        if (param.type == ParamType::Double && param.step.empty()) {
            return error(
                fmt::format("{}: grid search needs a step for a range of numbers, e.g. "
                            "{}={}:step=S (Katib's grid requires it)",
                            spec.where[i], param.name, format_space(param)));
        }
    }
    auto size = grid_size(spec.params);
    if (!size) {
        return size.error_value();
    }
    if (spec.max_trials > *size) {
        return error(
            fmt::format("--max-trials (tune.maxTrials) {}: the grid has only {} points; "
                        "lower it to {} or widen the grid",
                        spec.max_trials, *size, *size));
    }
    return util::ok_status();
}

// Return the text of a node (a Katib string field), "" when it is absent.
std::string text(const YAML::Node& node) {
    return node && node.IsScalar() ? node.Scalar() : "";
}

bool is_meta_reference(const std::string& reference) {
    static const std::regex meta(
        R"(\$\{trialSpec\.(Name|Namespace|Kind|APIVersion|(Annotations|Labels)\[.+\])\})");
    return std::regex_match(reference, meta);
}

util::Status check_trial_parameters(const YAML::Node& spec, std::string trial_spec) {
    std::set<std::string> parameters;
    for (const auto& parameter : spec["parameters"]) {
        parameters.insert(text(parameter["name"]));
    }
    std::set<std::string> names;
    std::set<std::string> references;
    const YAML::Node trial_parameters = spec["trialTemplate"]["trialParameters"];
    for (std::size_t i = 0; i < trial_parameters.size(); ++i) {
        const std::string name = text(trial_parameters[i]["name"]);
        const std::string reference = text(trial_parameters[i]["reference"]);
        const std::string path = fmt::format("spec.trialTemplate.trialParameters[{}]", i);
        if (name.empty() || reference.empty() || name.find_first_of("{}") != std::string::npos) {
            return error(path +
                         ": name and reference must be set and the name must not hold "
                         "'{' or '}'");
        }
        if (!names.insert(name).second || !references.insert(reference).second) {
            return error(fmt::format("{}: {} ({}) is a duplicate", path, name, reference));
        }
        if (!is_meta_reference(reference) && parameters.count(reference) == 0) {
            return error(
                fmt::format("{}.reference: {} is not in spec.parameters", path, reference));
        }
        const std::string placeholder = "${trialParameters." + name + "}";
        if (trial_spec.find(placeholder) == std::string::npos) {
            return error(
                fmt::format("{}.name: {} does not appear in the trialSpec", path, placeholder));
        }
        for (auto at = trial_spec.find(placeholder); at != std::string::npos;
             at = trial_spec.find(placeholder)) {
            trial_spec.replace(at, placeholder.size(), "test-value");
        }
    }
    std::smatch left;
    if (std::regex_search(trial_spec, left, std::regex(R"(\$\{trialParameters\..+?\})"))) {
        return error(fmt::format("spec.trialTemplate: {} has no trialParameter", left.str()));
    }
    return util::ok_status();
}

}  // namespace

util::Status check_tune_spec(const TuneSpec& spec) {
    if (!manifest::is_dns1035_label(spec.name) || spec.name.size() > k_longest_name) {
        return error(fmt::format(
            "--name (tune.name, default the job's name) \"{}\": a search's name must be lower-case "
            "letters, digits and '-', start with a letter, end with a letter or digit, and be at "
            "most {} characters (Katib's limit)",
            spec.name, k_longest_name));
    }
    if (auto counts = check_counts(spec); !counts) {
        return counts;
    }
    const Objective& objective = spec.objective;
    if (objective.goal && !std::isfinite(*objective.goal)) {
        return error(
            fmt::format("--goal (tune.goal) {}: must be a finite number", *objective.goal));
    }
    if (objective.goal && objective.metric == "accuracy" &&
        (*objective.goal < 0 || *objective.goal > 1)) {
        return error(fmt::format("--goal (tune.goal) {}: accuracy is a fraction from 0 to 1",
                                 *objective.goal));
    }
    if (objective.goal && objective.metric == "loss" && *objective.goal < 0) {
        return error(
            fmt::format("--goal (tune.goal) {}: a loss is never below 0", *objective.goal));
    }
    if (spec.algorithm == "grid") {
        return check_grid(spec);
    }
    return util::ok_status();
}

util::Status check_experiment(const YAML::Node& experiment) {
    const YAML::Node spec = experiment["spec"];
    const YAML::Node trial_template = spec["trialTemplate"];
    if (!trial_template || !trial_template["trialSpec"]) {
        return error("spec.trialTemplate.trialSpec: must be specified");
    }
    if (text(trial_template["primaryContainerName"]).empty()) {
        return error("spec.trialTemplate.primaryContainerName: must be specified");
    }
    if (text(trial_template["successCondition"]).empty() ||
        text(trial_template["failureCondition"]).empty()) {
        return error("spec.trialTemplate: successCondition and failureCondition must be specified");
    }
    const YAML::Node trial_spec = trial_template["trialSpec"];
    if (trial_spec["metadata"]["name"] || trial_spec["metadata"]["namespace"]) {
        return error(
            "spec.trialTemplate: metadata.name and metadata.namespace in the trialSpec "
            "must be omitted");
    }
    if (text(trial_spec["apiVersion"]).empty() || text(trial_spec["kind"]).empty()) {
        return error("spec.trialTemplate: the trialSpec must name its apiVersion and kind");
    }
    return check_trial_parameters(spec, manifest::to_yaml(trial_spec));
}

}  // namespace kftrain::tune
