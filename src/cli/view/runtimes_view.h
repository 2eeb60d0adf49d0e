#pragma once

#include <ctime>
#include <ostream>
#include <vector>

#include "cli/view/output_format.h"
#include "job/runtimes.h"

namespace kftrain::cli::view {

// Print training runtimes as a table (NAME, KIND, FRAMEWORK, NUM NODES, AGE) or as
// {"items": [...]} in JSON or YAML.
void print_runtimes(std::ostream& out, const std::vector<job::TrainingRuntime>& runtimes,
                    OutputFormat format, std::time_t now);

}  // namespace kftrain::cli::view
