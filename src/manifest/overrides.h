#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::manifest {

// Apply one --set "dotted.key=value" to a parsed job file, typed by the schema,
// and record in the source map that the key came from the flag.
util::Status apply_set(YAML::Node& root, const std::string& assignment, SourceMap& source);

}  // namespace kftrain::manifest
