#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>

#include "util/result.h"

namespace kftrain::manifest {

// The most bytes kftrain reads from a job file, template, price catalog or profile: each is
// a few KiB, so anything past this is a mistake (or /dev/zero), refused before it is read.
inline constexpr std::size_t k_max_input_bytes = 1024 * 1024;

// The deepest nesting and the most values a parsed document may hold. A real job file has
// a few hundred values and a depth under 10; the limits stop a recursive alias (&a [*a]) or
// an alias bomb before anything walks it.
inline constexpr int k_max_yaml_depth = 64;
// The most --set flags one command takes: each is a value a job file could hold instead.
inline constexpr std::size_t k_max_set_flags = 1000;
inline constexpr std::size_t k_max_yaml_values = 5000;

// Parse text as exactly one YAML document that every later walk can trust: at most
// k_max_yaml_depth deep and k_max_yaml_values values (aliases counted where they are used),
// map keys plain strings, no key twice in one map. Errors name the input and its line:
// "job.yaml:4: replicas: duplicate key (first at line 2)". An empty text gives a null node.
// UTF-16 and UTF-32 text with a byte order mark is read as YAML 1.2 allows.
util::Result<YAML::Node> parse_yaml(const std::string& text, const std::string& name);

}  // namespace kftrain::manifest
