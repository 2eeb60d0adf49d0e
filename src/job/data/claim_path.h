#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::job::data {

// A directory in a PersistentVolumeClaim: on a cluster reached through a helper pod, on this
// machine a directory the claim maps to (--local-path, or the localPath of the job file's
// volume for the claim).
struct ClaimTarget {
    std::string claim;
    std::string path = "/";  // normalized (normalize_claim_path below)
    std::string namespace_;  // "" for kubectl's
    std::string image;
    bool as_root = false;
    std::chrono::seconds start_timeout{120};  // for the helper pod to become Ready
    std::string local_path;                   // --local-path: the claim's directory here
    std::string job_file;                     // -f, named in errors; "" when none
    std::vector<manifest::Volume> volumes;    // the job file's
};

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

}  // namespace kftrain::job::data
