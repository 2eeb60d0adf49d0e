#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "estimate/report.h"

namespace kftrain::estimate {

// Format a report as a table of sizes, a summary of the fastest, cheapest and chosen
// sizes, and every assumption behind the numbers.
std::string format_table(const Report& report);

// Return a report as one document (times in seconds, money in the catalog's currency): the
// data of estimate -o json and -o yaml.
nlohmann::ordered_json report_to_json(const Report& report);

// Format a report as one JSON document, indented: report_to_json dumped.
std::string format_json(const Report& report);

}  // namespace kftrain::estimate
