#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "cli/view/output_format.h"

namespace kftrain::cli::view {

// Format a rendered manifest as YAML (any format but Json) or as indented JSON.
std::string format_manifest(const YAML::Node& manifest, OutputFormat format);

// Format the documents kubectl apply takes in order: one as format_manifest does; more as
// YAML documents separated by ---, or as one JSON List.
std::string format_manifests(const std::vector<YAML::Node>& documents, OutputFormat format);

}  // namespace kftrain::cli::view
