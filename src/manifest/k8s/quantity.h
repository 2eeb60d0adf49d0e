#pragma once

#include <optional>
#include <string>

#include "util/result.h"

namespace kftrain::manifest {

// What read_quantity says of a text that is no quantity at all.
inline constexpr const char* k_quantity_expected = "expected a quantity such as 4, 500m or 8Gi";

// Read a Kubernetes resource quantity ("500m", "4", "8Gi", "1e3") as its value in base units
// (cores, bytes). An error says why it is none: k_quantity_expected for a text of another
// shape, or that it is out of range: Kubernetes holds a quantity's magnitude below 2^63 base
// units and no finer than 1n, so "1" and 400 zeros, "0." and 400 zeros and "1", or "1e99999"
// are refused, never rounded to infinity or zero.
util::Result<double> read_quantity(const std::string& text);

// Parse a Kubernetes resource quantity to its value in base units; nullopt when read_quantity
// refuses it.
std::optional<double> parse_quantity(const std::string& text);

// Return a quantity of a resource as Kubernetes writes it: "1500m" and "2" for CPU (cpu,
// requests.cpu, limits.cpu), "2Gi", "1.5Gi" or "300Mi" for memory, storage and huge pages,
// "4" for counts and extended resources.
std::string quantity_text(const std::string& resource, double value);

}  // namespace kftrain::manifest
