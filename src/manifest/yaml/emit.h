#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>

namespace kftrain::manifest {

// Make a scalar node that is always read back as a string (tagged "!").
YAML::Node string_node(const std::string& value);

// Emit a document as YAML, quoting every string that would otherwise be read
// back as a number, boolean or null.
std::string to_yaml(const YAML::Node& node);

// Convert a document to JSON with YAML's types: strings stay strings, plain
// scalars become numbers, booleans or null where they look like one.
nlohmann::json to_json(const YAML::Node& node);

}  // namespace kftrain::manifest
