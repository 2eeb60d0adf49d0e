#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kftrain::cli::kube {

// Read fields of kubectl's JSON without throwing: a missing key, a value of
// another type or a non-object gives an empty value, never an exception.

// Return the member at key, or a null json when object has none.
const nlohmann::json& member(const nlohmann::json& object, const char* key);

// Return the string at key, or "" when it is missing or not a string.
std::string string_at(const nlohmann::json& object, const char* key);

// Return the integer at key, or 0 when it is missing or not an integer.
int int_at(const nlohmann::json& object, const char* key);

// Return the element of a list of containers (or container statuses) named "pytorch", as
// the operator requires of the training container, else the first; null when empty.
const nlohmann::json& training_container(const nlohmann::json& containers);

}  // namespace kftrain::cli::kube
