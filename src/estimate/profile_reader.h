#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "util/json_text.h"

namespace kftrain::estimate {

// Reads keys of one profile object (a trainer's or a program's), keeping the first error:
// every message names the file, the key, what it must be and what it was.
class ProfileReader {
  public:
    ProfileReader(const nlohmann::json& json, std::string source)
        : m_json(json), m_source(std::move(source)) {}

    // Read a non-empty string.
    std::string text(const char* key) {
        const nlohmann::json* v = find(key);
        if (v != nullptr && (!v->is_string() || v->get<std::string>().empty())) {
            fail(key, "must be a non-empty string", *v);
            return {};
        }
        return v != nullptr ? v->get<std::string>() : std::string();
    }

    // Read an integer of at least min.
    int64_t integer(const char* key, int64_t min) {
        const nlohmann::json* v = find(key);
        if (v == nullptr) {
            return min;
        }
        if (!v->is_number_integer() || v->get<int64_t>() < min) {
            fail(key, fmt::format("must be an integer >= {}", min), *v);
            return min;
        }
        return v->get<int64_t>();
    }

    // Read a number in [min, max]; strictly above min when open_min.
    double number(const char* key, double min, bool open_min, double max = 1e300) {
        const nlohmann::json* v = find(key);
        return v != nullptr ? check_number(key, *v, min, open_min, max) : min;
    }

    // Read a string like text(), or fallback when the key is absent (older profiles).
    std::string optional_text(const char* key, const std::string& fallback) {
        return m_json.contains(key) ? text(key) : fallback;
    }

    // Read an integer of at least min, or fallback when the key is absent (older profiles).
    int64_t optional_integer(const char* key, int64_t min, int64_t fallback) {
        return m_json.contains(key) ? integer(key, min) : fallback;
    }

    // Read a number like number(), or fallback when the key is absent (older profiles).
    double optional_number(const char* key, double min, double fallback) {
        return m_json.contains(key) ? number(key, min, false) : fallback;
    }

    // Read a number like number(), or null.
    std::optional<double> nullable(const char* key, double min, bool open_min, double max) {
        const nlohmann::json* v = find(key);
        if (v == nullptr || v->is_null()) {
            return std::nullopt;
        }
        return check_number(key, *v, min, open_min, max);
    }

    // Return the first error, if any.
    const std::optional<std::string>& error() const { return m_error; }

  private:
    const nlohmann::json* find(const char* key) {
        const auto it = m_json.find(key);
        if (it == m_json.end()) {
            set_error(fmt::format("{}: {}: missing", m_source, key));
            return nullptr;
        }
        return &*it;
    }

    double check_number(const char* key, const nlohmann::json& v, double min, bool open_min,
                        double max) {
        const bool ok = v.is_number() &&
                        (open_min ? v.get<double>() > min : v.get<double>() >= min) &&
                        v.get<double>() <= max;
        if (!ok) {
            const std::string range = max < 1e300
                                          ? fmt::format("between {} and {}", min, max)
                                          : fmt::format("{} {}", open_min ? ">" : ">=", min);
            fail(key, "must be a number " + range, v);
            return min;
        }
        return v.get<double>();
    }

    void fail(const char* key, const std::string& what, const nlohmann::json& got) {
        set_error(fmt::format("{}: {}: {} (got {})", m_source, key, what, util::json_excerpt(got)));
    }

    void set_error(std::string message) {
        if (!m_error) {
            m_error = std::move(message);
        }
    }

    const nlohmann::json& m_json;
    std::string m_source;
    std::optional<std::string> m_error;
};

}  // namespace kftrain::estimate
