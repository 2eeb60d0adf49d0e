#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "manifest/job_kind.h"

namespace kftrain::test {

// Check a document against a CRD's openAPIV3Schema (types, properties,
// required keys, enums, int-or-string); unknown fields count as errors, since
// the API server would silently drop them. Returns one line per problem.
std::vector<std::string> check_against_crd(const nlohmann::json& document,
                                           const std::string& crd_path);

// Return whether the CRD at path can be read. Without it the calling test fails
// when CI is set (the reference must be present there) and is skipped with a
// warning on a developer's machine.
bool crd_readable(const std::string& crd_path);

// Return the path of the CRD of a kind in ../shared/reference.
std::string crd_file(manifest::JobKind kind);

}  // namespace kftrain::test
