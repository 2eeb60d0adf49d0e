#pragma once

#include <nlohmann/json.hpp>
#include <optional>

namespace kftrain::util {

// Return a value as JSON, or null when it is unset: how kftrain's JSON writes an optional field.
template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace kftrain::util
