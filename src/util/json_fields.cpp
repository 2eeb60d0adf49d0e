#include "util/json_fields.h"

#include <fmt/format.h>

#include "util/json_text.h"

namespace kftrain::util {

const nlohmann::json& member(const nlohmann::json& object, const char* key) {
    static const nlohmann::json k_null;
    if (!object.is_object()) {
        return k_null;
    }
    auto it = object.find(key);
    return it == object.end() ? k_null : *it;
}

std::string string_at(const nlohmann::json& object, const char* key) {
    const nlohmann::json& value = member(object, key);
    return value.is_string() ? value.get<std::string>() : "";
}

int int_at(const nlohmann::json& object, const char* key) {
    return json_number<int>(member(object, key)).value_or(0);
}

const nlohmann::json& JsonFields::required(const char* key) const {
    if (!m_doc.contains(key)) {
        throw JsonFieldError{fmt::format("field '{}' is missing", at(key))};
    }
    return m_doc.at(key);
}

void JsonFields::fail(const char* key, const std::string& what, const nlohmann::json& got) const {
    throw JsonFieldError{
        fmt::format("field '{}' is not {} (got {})", at(key), what, json_excerpt(got))};
}

std::string JsonFields::text(const char* key) const {
    const nlohmann::json& value = required(key);
    if (!value.is_string() || value.get<std::string>().empty()) {
        fail(key, "a non-empty string", value);
    }
    return value.get<std::string>();
}

int64_t JsonFields::integer(const char* key, int64_t min) const {
    const nlohmann::json& value = required(key);
    const bool whole = value.is_number_integer() &&
                       (!value.is_number_unsigned() || value.get<uint64_t>() <= INT64_MAX);
    if (!whole || value.get<int64_t>() < min) {
        fail(key, fmt::format("an integer >= {}", min), value);
    }
    return value.get<int64_t>();
}

double JsonFields::number(const char* key, double min, bool open_min, double max) const {
    auto value = number_or_null(key, min, open_min, max);
    if (!value) {
        fail(key, "a number", nullptr);
    }
    return *value;
}

std::optional<double> JsonFields::number_or_null(const char* key, double min, bool open_min,
                                                 double max) const {
    const nlohmann::json& value = required(key);
    if (value.is_null()) {
        return std::nullopt;
    }
    const bool ok = value.is_number() &&
                    (open_min ? value.get<double>() > min : value.get<double>() >= min) &&
                    value.get<double>() <= max;
    if (!ok) {
        const std::string range = max < std::numeric_limits<double>::max()
                                      ? fmt::format("between {} and {}", min, max)
                                      : fmt::format("{} {}", open_min ? ">" : ">=", min);
        fail(key, "a number " + range, value);
    }
    return value.get<double>();
}

}  // namespace kftrain::util
