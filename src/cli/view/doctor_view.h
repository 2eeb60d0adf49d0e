#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/view/output_format.h"
#include "doctor/report.h"

namespace kftrain::cli::view {

// Return a report as data: {"passed", "verdict", "checks": [{group, name, state, found, fix,
// needed}]} (docs/doctor.md).
nlohmann::json doctor_to_json(const doctor::Report& report);

// Print a report: a line per check (GROUP, CHECK, STATE, FOUND) with "fix:" under each that is
// not ok, then the verdict; or its data as JSON or YAML.
void print_doctor(std::ostream& out, const doctor::Report& report, OutputFormat format);

}  // namespace kftrain::cli::view
