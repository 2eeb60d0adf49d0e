#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

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

}  // namespace kftrain::util
