#pragma once

#include <ctime>
#include <ostream>
#include <vector>

#include "cli/kube/runtimes.h"
#include "cli/view/output_format.h"

namespace kftrain::cli::view {

// Print training runtimes as a table (NAME, KIND, FRAMEWORK, NUM NODES, AGE) or as
// {"items": [...]} in JSON or YAML.
void print_runtimes(std::ostream& out, const std::vector<kube::TrainingRuntime>& runtimes,
                    OutputFormat format, std::time_t now);

}  // namespace kftrain::cli::view
