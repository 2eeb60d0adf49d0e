#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

namespace kftrain::manifest {

// Return text as a label value: at most 63 of [A-Za-z0-9._-], starting and ending with a letter
// or digit (others become '-', the ends are trimmed); "" when nothing of it is left
// ("system:admin" gives "system-admin", "oidc:alice@example.com" gives
// "oidc-alice-example.com").
std::string label_value_of(const std::string& text);

// Stamp a rendered job (its metadata, as the templates' labels are placed) with who submitted
// it (k_submitted_by_label, left off when user gives no label value) and the --max-cost
// estimate (k_estimated_cost_annotation, a plain number, when one was made).
void stamp_submission(YAML::Node& job, const std::string& user,
                      std::optional<double> estimated_cost);

}  // namespace kftrain::manifest
