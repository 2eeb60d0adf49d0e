#pragma once

#include <optional>
#include <string>

namespace kftrain::manifest {

// Parse a Kubernetes resource quantity ("500m", "4", "8Gi", "1e3") to its value
// in base units (cores, bytes); nullopt when it is not a valid quantity.
std::optional<double> parse_quantity(const std::string& text);

}  // namespace kftrain::manifest
