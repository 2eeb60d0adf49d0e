#pragma once

#include <nlohmann/json.hpp>
#include <optional>

namespace kftrain::util {

// Return a value as JSON, or null when it is unset: how kftrain's JSON writes an optional field.
template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// Read an optional field: set out when doc has key and it is not null; throws
// nlohmann::json::exception when it is of another type (callers reading files catch it).
template <typename T>
void read_optional(const nlohmann::json& doc, const char* key, std::optional<T>& out) {
    auto it = doc.find(key);
    if (it != doc.end() && !it->is_null()) {
        out = it->get<T>();
    }
}

}  // namespace kftrain::util
