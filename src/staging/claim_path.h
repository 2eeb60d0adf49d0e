#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "job/claim.h"
#include "util/result.h"

namespace kftrain::staging {

using job::ClaimTarget;

// The image of the helper pod that reaches a claim on a cluster: small, with tar, find and stat
// (busybox), pinned. `data --image` names it in its help.
inline constexpr const char* k_helper_image = "busybox:1.36.1";

// Where the helper pod mounts the claim: every --path lies under it.
inline constexpr const char* k_mount_point = "/kftrain/claim";

// Check --path, a directory inside the claim, and return it normalized: absolute, no "." or
// empty parts, no trailing slash ("/" for the claim's root). A relative path, a ".." part or a
// control character is an error naming --path and the value.
util::Result<std::string> normalize_claim_path(const std::string& path);

// Return where a normalized claim path lies in the helper pod: "/mnist" -> "/kftrain/claim/mnist".
std::string pod_path(const std::string& claim_path);

// Return where a normalized claim path lies in the directory a claim maps to on this machine.
std::string local_claim_path(const std::string& root, const std::string& claim_path);

}  // namespace kftrain::staging
