#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::tune {

// The kind of values a tuned parameter takes, as Katib's parameterType names them.
enum class ParamType { Double, Int, Discrete, Categorical };

// Return Katib's name of a parameter type: double, int, discrete, categorical.
const char* param_type_name(ParamType type);

// One tuned trainer setting and the values the search may give it. Numbers keep the text the
// user wrote, as Katib's feasibleSpace does.
struct Param {
    std::string name;  // the trainer key: lr, batchSize, optimizer
    ParamType type = ParamType::Double;
    std::string min;  // Double and Int: the range, both ends included
    std::string max;
    std::string step;               // Double and Int: optional grid step
    bool log = false;               // Double: sample on a log scale (Katib's logUniform)
    std::vector<std::string> list;  // Discrete and Categorical: the values
    // A ${trialParameters.NAME} placeholder of the job file's command, args or env, not a
    // trainer key: it has no schema, so its type comes from its space.
    bool placeholder = false;
};

// Parse a parameter's space, written as in `--param NAME=SPACE` or `tune.params.NAME: SPACE`:
// MIN:MAX[:log][:step=S] for a range, A,B,C for a list. The name must be a trainer key, and
// the type and bounds come from its schema (lr is a double in 0..10, batchSize an integer,
// optimizer one of sgd, adam). where names the flag or key in messages.
util::Result<Param> parse_param(const std::string& name, const std::string& space,
                                const std::string& where);

// Parse the space of a ${trialParameters.NAME} placeholder, which has no schema: a range of
// integers (1:8) is an int, of other numbers (0.001:0.1, 1e-4:1e-2) a double, a list of
// numbers discrete, any other list categorical; :log and :step=S as for a trainer key.
util::Result<Param> parse_placeholder_param(const std::string& name, const std::string& space,
                                            const std::string& where);

// Split the text of a --param flag, NAME=SPACE, into its name and space; where names the
// flag in messages.
util::Result<std::pair<std::string, std::string>> split_param_flag(const std::string& text);

// Parse the text of a --param flag, NAME=SPACE, as a trainer key.
util::Result<Param> parse_param_flag(const std::string& text);

// Return the space as the user writes it: "0.001:0.1:log", "32,64,128".
std::string format_space(const Param& param);

}  // namespace kftrain::tune
