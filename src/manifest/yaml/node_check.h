#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "manifest/job_spec.h"
#include "manifest/schema.h"
#include "util/result.h"

namespace kftrain::manifest {

// Check a parsed job file against the schema: unknown keys (with a suggestion),
// wrong types and out-of-range values, located with the source map.
util::Status check_against_schema(const YAML::Node& root, const SourceMap& source);

// Describe a YAML value for a message: its scalar text (at most 64 bytes of it, quoted where
// needed), or "a map" / "a list".
std::string describe_value(const YAML::Node& node);

}  // namespace kftrain::manifest
