#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tune/search_status.h"
#include "util/json_fields.h"

namespace kftrain::search {

// One trial as JSON, the one shape kftrain writes it in: the local search record keeps it and
// `tune status -o json` prints it (adding durationSeconds). Parameters are an object of
// name -> value as text.
nlohmann::json trial_to_json(const tune::TrialRecord& trial);

// Read a trial trial_to_json wrote; its parameters are put in param_order (the search's
// order), then any others. Also reads the earlier record's list of {name, value}. Throws
// util::JsonFieldError naming the field when one is missing or of the wrong type.
tune::TrialRecord trial_from_json(const util::JsonFields& doc,
                                  const std::vector<std::string>& param_order);

}  // namespace kftrain::search
