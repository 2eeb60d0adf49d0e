#pragma once

#include <string>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::manifest {

// Check the rules the Training Operator's webhook and Kubernetes enforce, so a
// job that passes here is not rejected after it was submitted.
util::Status validate_job(const JobSpec& spec);

// Return whether text is a DNS-1035 label: lower-case alphanumerics and '-',
// starting with a letter, ending with an alphanumeric, at most 63 characters.
bool is_dns1035_label(const std::string& text);

// Return whether text is a DNS-1123 label (like DNS-1035, may start with a digit).
bool is_dns1123_label(const std::string& text);

// Return whether text is a DNS-1123 subdomain: DNS-1123 labels (of any length) joined by '.',
// at most 253 characters; what Kubernetes requires of most object names.
bool is_dns1123_subdomain(const std::string& text);

}  // namespace kftrain::manifest
