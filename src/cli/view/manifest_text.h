#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "cli/view/output_format.h"

namespace kftrain::cli::view {

// Format a rendered manifest as YAML (any format but Json) or as indented JSON.
std::string format_manifest(const YAML::Node& manifest, OutputFormat format);

}  // namespace kftrain::cli::view
