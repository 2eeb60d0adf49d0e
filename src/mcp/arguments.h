#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::mcp {

// Reads a tool's arguments by name, keeping the first thing wrong with them; finish() returns
// it, or names an argument the tool does not take. Messages name the argument and the value,
// for the isError result an agent corrects its call from.
class ArgumentReader {
  public:
    explicit ArgumentReader(const nlohmann::json& arguments) : m_args(arguments) {}

    // A non-empty string, or fallback when absent.
    std::string text(const char* name, const std::string& fallback = "");
    // A boolean, or fallback when absent.
    bool flag(const char* name, bool fallback);
    // An integer within [min, max], or nullopt when absent.
    std::optional<long long> integer(const char* name, long long min, long long max);
    // An array of at most max_items non-empty strings, or none when absent.
    std::vector<std::string> strings(const char* name, size_t max_items);
    // An array of at most max_items integers within [min, max], or none when absent.
    std::vector<long long> integers(const char* name, long long min, long long max,
                                    size_t max_items);

    // Keep message as what is wrong, unless something already is.
    void refuse(std::string message);

    // Return the first error, or one naming an argument that is not in known.
    util::Status finish(std::initializer_list<const char*> known) const;

  private:
    const nlohmann::json* find(const char* name) const;

    const nlohmann::json& m_args;
    std::optional<std::string> m_error;
};

// The job file a job tool works on: a path or the YAML itself, and --set overrides.
struct JobArguments {
    std::string job_file;
    std::string job_yaml;
    std::vector<std::string> sets;
};

// Read job_file, job_yaml and set: exactly one of the first two must be given.
JobArguments read_job_arguments(ArgumentReader& reader);

// The most --set values, params and replica counts one call takes (the CLI's own cap on --set).
inline constexpr size_t k_max_list_items = 1000;

// Return a short JSON rendering of a value for a message, cut at 60 characters.
std::string describe_value(const nlohmann::json& value);

}  // namespace kftrain::mcp
