#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kftrain::manifest {

// Make a scalar node that is always read back as a string (tagged "!").
YAML::Node string_node(const std::string& value);

// Make a sequence of string_node()s.
YAML::Node string_list(const std::vector<std::string>& items);

// Emit a document as YAML, quoting every string that would otherwise be read
// back as a number, boolean or null.
std::string to_yaml(const YAML::Node& node);

// Convert a document to JSON with YAML's types: strings stay strings, plain
// scalars become numbers, booleans or null where they look like one.
nlohmann::json to_json(const YAML::Node& node);

// Convert JSON (ordered or not) to a document to_json reads back equal: strings as
// string_node()s, numbers and booleans plain.
template <typename Json>
YAML::Node from_json(const Json& value) {
    if (value.is_object()) {
        YAML::Node map(YAML::NodeType::Map);
        for (const auto& [key, item] : value.items()) {
            map[key] = from_json(item);
        }
        return map;
    }
    if (value.is_array()) {
        YAML::Node list(YAML::NodeType::Sequence);
        for (const auto& item : value) {
            list.push_back(from_json(item));
        }
        return list;
    }
    if (value.is_string()) {
        return string_node(value.template get<std::string>());
    }
    if (value.is_null()) {
        return YAML::Node(YAML::NodeType::Null);
    }
    return YAML::Node(value.dump());  // a number or a boolean, plain
}

}  // namespace kftrain::manifest
