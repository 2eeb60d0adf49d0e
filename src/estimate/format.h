#pragma once

#include <string>

#include "estimate/report.h"

namespace kftrain::estimate {

// Format a report as a table of sizes, a summary of the fastest, cheapest and chosen
// sizes, and every assumption behind the numbers.
std::string format_table(const Report& report);

// Format a report as one JSON document (times in seconds, money in the catalog's currency).
std::string format_json(const Report& report);

}  // namespace kftrain::estimate
