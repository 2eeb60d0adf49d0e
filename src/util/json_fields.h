#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "util/json_text.h"

namespace kftrain::util {

// The lenient readers, for JSON from outside that a missing or odd field must not stop
// (kubectl's objects, a progress line, a status post): a missing key, a value of another type
// or a non-object gives an empty value, never an exception. JsonFields below is the strict
// one, for the files kftrain keeps.

// Return the member at key, or a null json when object is no object or has none.
const nlohmann::json& member(const nlohmann::json& object, const char* key);

// Return the string at key, or "" when it is missing or not a string.
std::string string_at(const nlohmann::json& object, const char* key);

// Return the integer at key, or 0 when it is missing or not an integer in an int's range.
int int_at(const nlohmann::json& object, const char* key);

// Return the number at key as a T; nullopt when it is missing, no number, or (for an integer
// type) not a whole number within T's range: a program's progress line is not to be trusted
// (epoch 1e308 cast to int is undefined).
template <typename T>
std::optional<T> number_at(const nlohmann::json& object, const char* key) {
    return json_number<T>(member(object, key));
}

// Return value when it lies within [low, high], else nullopt: a number from outside (a program's
// progress line, a posted metric) that is no sane count is no count ("epoch -3").
template <typename T>
std::optional<T> in_range(std::optional<T> value, T low, T high) {
    return value && *value >= low && *value <= high ? value : std::nullopt;
}

// A field of a JSON file kftrain keeps (a job's state.json, a search record) that is not what
// kftrain writes: "field 'replicas[1].pid' is not a number".
struct JsonFieldError {
    std::string message;
};

// Read a JSON document's fields, each checked for its type and range, so a damaged or planted
// file gives an error naming the field, never a JSON library's message. A wrong field throws
// JsonFieldError.
class JsonFields {
  public:
    JsonFields(const nlohmann::json& doc, std::string path) : m_doc(doc), m_path(std::move(path)) {}

    // Return the field key as T (a string, a number, or a non-negative integer), fallback when
    // it is absent or null; required: an absent one is an error.
    template <typename T>
    T get(const char* key, T fallback, bool required = false) const {
        if (!m_doc.contains(key) || m_doc.at(key).is_null()) {
            if (required) {
                throw JsonFieldError{fmt::format("field '{}' is missing", at(key))};
            }
            return fallback;
        }
        return as<T>(m_doc.at(key), key);
    }

    // Whether the document has key (null included): for fields older files lack.
    bool has(const char* key) const { return m_doc.contains(key); }

    // Return the non-empty string at key (required).
    std::string text(const char* key) const;

    // Return the integer at key (required), at least min.
    int64_t integer(const char* key, int64_t min) const;

    // Return the number at key (required), at least min (above it when open_min) and at most
    // max; nullopt where null is allowed and given.
    double number(const char* key, double min, bool open_min = false,
                  double max = std::numeric_limits<double>::max()) const;
    std::optional<double> number_or_null(const char* key, double min, bool open_min = false,
                                         double max = std::numeric_limits<double>::max()) const;

    // Return a map of strings (empty when absent).
    std::map<std::string, std::string> strings(const char* key) const {
        std::map<std::string, std::string> out;
        if (m_doc.contains(key)) {
            check(m_doc.at(key).is_object(), key, "a map");
            for (const auto& [name, value] : m_doc.at(key).items()) {
                check(value.is_string(), key, "a map of strings", name);
                out[name] = value.get<std::string>();
            }
        }
        return out;
    }

    // Return a map of numbers (empty when absent).
    std::map<std::string, double> numbers(const char* key) const {
        std::map<std::string, double> out;
        if (m_doc.contains(key) && !m_doc.at(key).is_null()) {
            check(m_doc.at(key).is_object(), key, "a map");
            for (const auto& [name, value] : m_doc.at(key).items()) {
                check(value.is_number(), key, "a map of numbers", name);
                out[name] = value.get<double>();
            }
        }
        return out;
    }

    // Return a list of strings (required).
    std::vector<std::string> list(const char* key) const {
        std::vector<std::string> out;
        check(m_doc.contains(key) && m_doc.at(key).is_array(), key, "a list");
        for (size_t i = 0; i < m_doc.at(key).size(); ++i) {
            check(m_doc.at(key)[i].is_string(), key, "a string", fmt::format("[{}]", i));
            out.push_back(m_doc.at(key)[i].get<std::string>());
        }
        return out;
    }

    // Return a list of numbers, each at least min (empty when absent or null).
    std::vector<double> number_list(const char* key, double min) const {
        std::vector<double> out;
        if (!m_doc.contains(key) || m_doc.at(key).is_null()) {
            return out;
        }
        check(m_doc.at(key).is_array(), key, "a list of numbers");
        for (size_t i = 0; i < m_doc.at(key).size(); ++i) {
            const nlohmann::json& v = m_doc.at(key)[i];
            check(v.is_number() && v.get<double>() >= min, key,
                  fmt::format("a number >= {:g}", min).c_str(), fmt::format("[{}]", i));
            out.push_back(v.get<double>());
        }
        return out;
    }

    // Return the member object key (an empty one when absent).
    JsonFields object(const char* key) const {
        static const nlohmann::json k_empty = nlohmann::json::object();
        if (!m_doc.contains(key)) {
            return JsonFields(k_empty, at(key));
        }
        check(m_doc.at(key).is_object(), key, "an object");
        return JsonFields(m_doc.at(key), at(key));
    }

    // Return the list key (required), each item an object, as JsonFields named key[i].
    std::vector<JsonFields> objects(const char* key) const {
        check(m_doc.contains(key) && m_doc.at(key).is_array(), key, "a list");
        std::vector<JsonFields> out;
        const nlohmann::json& items = m_doc.at(key);
        for (size_t i = 0; i < items.size(); ++i) {
            check(items[i].is_object(), key, "an object", fmt::format("[{}]", i));
            out.emplace_back(items[i], at(key) + fmt::format("[{}]", i));
        }
        return out;
    }

    // Return the dotted name of a field of this object.
    std::string at(const std::string& key) const {
        return m_path.empty() ? key : m_path + "." + key;
    }

    // Throw "field 'PATH.key[item]' is not WHAT" unless ok.
    void check(bool ok, const std::string& key, const char* what,
               const std::string& item = "") const {
        if (!ok) {
            std::string sep = item.empty() || item[0] == '[' ? "" : ".";
            throw JsonFieldError{fmt::format("field '{}{}{}' is not {}", at(key), sep, item, what)};
        }
    }

    const nlohmann::json& doc() const { return m_doc; }

  private:
    // The value at key (required): a missing key throws "field 'PATH.key' is missing".
    const nlohmann::json& required(const char* key) const;

    // Throw "field 'PATH.key' is not WHAT (got VALUE)".
    [[noreturn]] void fail(const char* key, const std::string& what,
                           const nlohmann::json& got) const;

    template <typename T>
    T as(const nlohmann::json& value, const char* key) const {
        if constexpr (std::is_same_v<T, std::string>) {
            check(value.is_string(), key, "a string");
        } else if constexpr (std::is_same_v<T, bool>) {
            check(value.is_boolean(), key, "true or false");
        } else if constexpr (std::is_floating_point_v<T>) {
            check(value.is_number(), key, "a number");
        } else if constexpr (std::is_unsigned_v<T>) {
            check(value.is_number_unsigned(), key, "a number");
            check(value.get<unsigned long long>() <= std::numeric_limits<T>::max(), key,
                  "a number in range");
        } else if constexpr (std::is_integral_v<T>) {
            check(value.is_number_integer(), key, "a number");
            constexpr auto k_max = static_cast<unsigned long long>(std::numeric_limits<T>::max());
            if (value.is_number_unsigned()) {
                check(value.get<unsigned long long>() <= k_max, key, "a number in range");
            } else {
                check(value.get<long long>() >= 0, key, "a number >= 0");
                check(static_cast<unsigned long long>(value.get<long long>()) <= k_max, key,
                      "a number in range");
            }
        }
        return value.get<T>();
    }

    const nlohmann::json& m_doc;
    std::string m_path;
};

}  // namespace kftrain::util
