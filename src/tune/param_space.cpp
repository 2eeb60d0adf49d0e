#include "tune/param_space.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "manifest/schema.h"
#include "manifest/suggest.h"
#include "util/text.h"

namespace kftrain::tune {
namespace {

using manifest::FieldDef;
using manifest::FieldType;
using util::error;

// Trainer keys that say where and how a job runs, not how the model learns.
const std::set<std::string>& not_hyperparameters() {
    static const std::set<std::string> keys = {
        "dataset",     "dataDir",         "checkpointDir", "checkpointEvery", "keepCheckpoints",
        "logEvery",    "backend",         "device",        "timeout",         "threads",
        "metricLines", "gradCompression", "bucketMb",      "memoryFormat",    "metricsPort",
    };
    return keys;
}

std::vector<std::string> tunable_keys() {
    std::vector<std::string> keys;
    for (const auto& def : manifest::find_field("trainer")->children) {
        if (not_hyperparameters().count(def.name) == 0) {
            keys.push_back(def.name);
        }
    }
    return keys;
}

std::string format_limit(double value) {
    return fmt::format("{:.6g}", value);  // 0.09, not 0.09000000000000001
}

// Check one number of a space against the trainer key's type and bounds.
util::Result<double> check_number(const std::string& text, const FieldDef& def,
                                  const std::string& what, const std::string& where) {
    const bool integer = def.type == FieldType::Int;
    auto value = util::parse_number(text, integer);
    if (!value) {
        return error(fmt::format("{}: {} must be {} (got \"{}\")", where, what,
                                 integer ? "an integer" : "a number", text));
    }
    if (def.min && *value < *def.min) {
        return error(fmt::format("{}: {} {} is below trainer.{}'s smallest value {}", where, what,
                                 text, def.name, format_limit(*def.min)));
    }
    if (def.max && *value > *def.max) {
        return error(fmt::format("{}: {} {} is above trainer.{}'s largest value {}", where, what,
                                 text, def.name, format_limit(*def.max)));
    }
    return *value;
}

// Name what a parameter sets in messages: trainer.lr, or ${trialParameters.lr}.
std::string subject(const Param& param) {
    return param.placeholder ? "${trialParameters." + param.name + "}" : "trainer." + param.name;
}

util::Result<Param> parse_range(Param param, const FieldDef& def, const std::string& space,
                                const std::string& where) {
    if (def.type != FieldType::Int && def.type != FieldType::Float) {
        return error(
            fmt::format("{}: trainer.{} is {}: give its values as a list (A,B,C), not a "
                        "range",
                        where, def.name, manifest::describe_type(def.type)));
    }
    param.type = def.type == FieldType::Int ? ParamType::Int : ParamType::Double;
    const auto parts = util::split(space, ':');
    param.min = parts[0];
    param.max = parts[1];
    auto low = check_number(param.min, def, "min", where);
    if (!low) {
        return low.error_value();
    }
    auto high = check_number(param.max, def, "max", where);
    if (!high) {
        return high.error_value();
    }
    if (*low >= *high) {
        return error(fmt::format("{}: min {} must be below max {}", where, param.min, param.max));
    }
    for (std::size_t i = 2; i < parts.size(); ++i) {
        const std::string& part = parts[i];
        if (part == "log") {
            if (param.type != ParamType::Double) {
                return error(
                    fmt::format("{}: log: only a range of numbers with fractions can be "
                                "searched on a log scale; {} is an integer{}",
                                where, subject(param),
                                param.placeholder ? " (write min or max with a decimal point, "
                                                    "e.g. 1.0, for a double)"
                                                  : ""));
            }
            if (*low <= 0) {
                return error(
                    fmt::format("{}: log: a log scale needs min > 0 (got {})", where, param.min));
            }
            param.log = true;
        } else if (part.rfind("step=", 0) == 0) {
            param.step = part.substr(5);
            auto step = check_number(param.step, def, "step", where);
            if (!step) {
                return step.error_value();
            }
            if (*step <= 0 || *step > *high - *low) {
                return error(fmt::format("{}: step {} must be above 0 and at most max - min ({})",
                                         where, param.step, format_limit(*high - *low)));
            }
        } else {
            return error(
                fmt::format("{}: \"{}\" is neither log nor step=S; a range is "
                            "MIN:MAX[:log][:step=S]",
                            where, part));
        }
    }
    return param;
}

util::Result<Param> parse_list(Param param, const FieldDef& def, const std::string& space,
                               const std::string& where) {
    std::set<std::string> seen;
    for (const auto& value : util::split(space, ',')) {
        if (value.empty()) {
            return error(fmt::format("{}: an empty value in the list \"{}\"", where, space));
        }
        if (!seen.insert(value).second) {
            return error(fmt::format("{}: {} is listed twice", where, value));
        }
        if (def.type == FieldType::Int || def.type == FieldType::Float) {
            auto number = check_number(value, def, "value", where);
            if (!number) {
                return number.error_value();
            }
        } else if (def.type == FieldType::Bool && value != "true" && value != "false") {
            return error(fmt::format("{}: trainer.{} is true or false (got \"{}\")", where,
                                     def.name, value));
        } else if (!def.allowed.empty() &&
                   std::find(def.allowed.begin(), def.allowed.end(), value) == def.allowed.end()) {
            return error(fmt::format("{}: trainer.{} must be one of {} (got \"{}\")", where,
                                     def.name, fmt::join(def.allowed, ", "), value));
        }
        param.list.push_back(value);
    }
    const bool numeric = def.type == FieldType::Int || def.type == FieldType::Float;
    param.type = numeric ? ParamType::Discrete : ParamType::Categorical;
    return param;
}

}  // namespace

const char* param_type_name(ParamType type) {
    switch (type) {
        case ParamType::Double:
            return "double";
        case ParamType::Int:
            return "int";
        case ParamType::Discrete:
            return "discrete";
        case ParamType::Categorical:
            return "categorical";
    }
    return "double";
}

util::Result<Param> parse_param(const std::string& name, const std::string& space,
                                const std::string& where) {
    const FieldDef* def = manifest::find_field("trainer." + name);
    if (name.empty() || def == nullptr || not_hyperparameters().count(name) != 0) {
        return error(fmt::format("{}: \"{}\" is not a trainer setting kftrain tunes{}; tunable: {}",
                                 where, name, manifest::did_you_mean(name, tunable_keys()),
                                 fmt::join(tunable_keys(), ", ")));
    }
    Param param;
    param.name = name;
    const std::string text = util::trim(space);
    if (text.empty()) {
        return error(
            fmt::format("{}: no values; give MIN:MAX[:log][:step=S] or a list A,B,C", where));
    }
    if (text.find(':') != std::string::npos) {
        return parse_range(param, *def, text, where);
    }
    return parse_list(param, *def, text, where);
}

util::Result<Param> parse_placeholder_param(const std::string& name, const std::string& space,
                                            const std::string& where) {
    Param param;
    param.name = name;
    param.placeholder = true;
    const std::string text = util::trim(space);
    if (text.empty()) {
        return error(
            fmt::format("{}: no values; give MIN:MAX[:log][:step=S] or a list A,B,C", where));
    }
    FieldDef def;  // no schema: the space's own numbers say the type
    def.name = name;
    if (text.find(':') != std::string::npos) {
        const auto parts = util::split(text, ':');
        const bool integers = util::parse_number(parts[0], true).has_value() && parts.size() > 1 &&
                              util::parse_number(parts[1], true).has_value();
        def.type = integers ? FieldType::Int : FieldType::Float;
        return parse_range(param, def, text, where);
    }
    const auto values = util::split(text, ',');
    const bool numbers = std::all_of(values.begin(), values.end(), [](const std::string& v) {
        return util::parse_number(v, false).has_value();
    });
    def.type = numbers ? FieldType::Float : FieldType::String;
    return parse_list(param, def, text, where);
}

util::Result<std::pair<std::string, std::string>> split_param_flag(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos) {
        return error(
            fmt::format("--param {}: expected NAME=SPACE, e.g. lr=0.001:0.1:log or "
                        "batchSize=32,64,128",
                        text));
    }
    return std::make_pair(util::trim(text.substr(0, eq)), text.substr(eq + 1));
}

util::Result<Param> parse_param_flag(const std::string& text) {
    auto split = split_param_flag(text);
    if (!split) {
        return split.error_value();
    }
    return parse_param(split->first, split->second, "--param " + text);
}

std::string format_space(const Param& param) {
    if (param.type == ParamType::Discrete || param.type == ParamType::Categorical) {
        return fmt::format("{}", fmt::join(param.list, ","));
    }
    std::string text = param.min + ":" + param.max;
    if (param.log) {
        text += ":log";
    }
    if (!param.step.empty()) {
        text += ":step=" + param.step;
    }
    return text;
}

}  // namespace kftrain::tune
