#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kftrain::test {

// Return the element of the array items whose member "name" is name (a doctor report's check,
// a listing's row); the test fails, showing items, where there is none.
nlohmann::json item_named(const nlohmann::json& items, const std::string& name);

}  // namespace kftrain::test
