#pragma once

// The versions of kubectl and the API server, and kubectl's version skew policy: a kubectl is
// supported within one minor version of the API server, older or newer. Pure.

#include <optional>
#include <string>

#include "doctor/report.h"

namespace kftrain::doctor {

// A Kubernetes version: "v1.32.3", "v1.20.2-dirty", "v1.27.4+k3s1".
struct Version {
    int major = 0;
    int minor = 0;
    std::string text;  // as reported
};

// Parse a gitVersion as `kubectl version -o json` reports it; nullopt when it is not one.
std::optional<Version> parse_version(const std::string& git_version);

// Return the check of the client against the server: ok within one minor version, a warning
// past it, naming both.
Check version_skew_check(const Version& client, const Version& server);

}  // namespace kftrain::doctor
