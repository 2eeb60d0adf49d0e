#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace kftrain::util {

// The deepest nesting of arrays and objects kftrain reads from text it did not write (a
// program's progress lines, kubectl's output, a profile, an MCP message). Real documents nest
// under 20 levels; printing or converting a deeper one would recurse that deep.
inline constexpr int k_max_json_depth = 64;

// Return whether the nesting of arrays and objects in text goes deeper than limit, looking
// only at brackets outside strings.
bool json_nests_deeper_than(std::string_view text, int limit = k_max_json_depth);

// Parse text from outside kftrain: a discarded value when it is not JSON, not valid UTF-8 or
// nests deeper than k_max_json_depth, never an exception.
nlohmann::json parse_untrusted_json(std::string_view text);

// Write value as JSON text (indent as nlohmann's dump takes it), invalid UTF-8 in any string
// replaced by U+FFFD, so text from a program or the cluster can never stop the writer.
std::string json_text(const nlohmann::json& value, int indent = -1);
std::string json_text(const nlohmann::ordered_json& value, int indent = -1);

// Return value as compact JSON cut to max_bytes ("..." after), for an error message that
// quotes what a file held.
std::string json_excerpt(const nlohmann::json& value, size_t max_bytes = 80);

// Return value as a T: nullopt when it is no number or, for an integer type, not a whole number
// within T's range (a program's epoch of 1e308, a forged restartCount of 2^62), never a cast
// that wraps or is undefined.
template <typename T>
std::optional<T> json_number(const nlohmann::json& value) {
    if (!value.is_number()) {
        return std::nullopt;
    }
    if constexpr (std::is_integral_v<T>) {
        if (value.is_number_float()) {
            const double v = value.get<double>();
            if (!(v >= static_cast<double>(std::numeric_limits<T>::min()) &&
                  v < -static_cast<double>(std::numeric_limits<T>::min())) ||
                v != std::floor(v)) {
                return std::nullopt;
            }
            return static_cast<T>(v);
        }
        if (value.is_number_unsigned()) {
            const auto v = value.get<std::uint64_t>();
            if (v > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
                return std::nullopt;
            }
            return static_cast<T>(v);
        }
        const auto v = value.get<std::int64_t>();
        if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
            return std::nullopt;
        }
        return static_cast<T>(v);
    }
    return value.get<T>();
}

}  // namespace kftrain::util
