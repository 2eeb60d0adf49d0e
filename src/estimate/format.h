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

// Say what a program's replicas used at each measured size and the resources recommended from
// it (sizing.h), for the table: "" when nothing was read (a trainer's benchmark profile).
std::string use_table(const ProgramProfile& program);

// The same as JSON: "use" (by measured size) and "recommended" (null when nothing was read).
nlohmann::ordered_json use_json(const ProgramProfile& program);

// Format a report as one JSON document, indented: report_to_json dumped.
std::string format_json(const Report& report);

}  // namespace kftrain::estimate
