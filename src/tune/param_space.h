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
};

// Parse a parameter's space, written as in `--param NAME=SPACE` or `tune.params.NAME: SPACE`:
// MIN:MAX[:log][:step=S] for a range, A,B,C for a list. The name must be a trainer key, and
// the type and bounds come from its schema (lr is a double in 0..10, batchSize an integer,
// optimizer one of sgd, adam). where names the flag or key in messages.
util::Result<Param> parse_param(const std::string& name, const std::string& space,
                                const std::string& where);

// Parse the text of a --param flag: NAME=SPACE.
util::Result<Param> parse_param_flag(const std::string& text);

// Return the space as the user writes it: "0.001:0.1:log", "32,64,128".
std::string format_space(const Param& param);

}  // namespace kftrain::tune
