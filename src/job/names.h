#pragma once

#include <string>

#include "util/result.h"

namespace kftrain::job {

// Check a name given on the command line (a job, a search, a trial) before it reaches kubectl
// or a state directory: it must be a Kubernetes object name, a DNS-1123 subdomain. `what`
// names the argument in the message ("job name", "--trial").
util::Status check_object_name(const std::string& what, const std::string& name);

}  // namespace kftrain::job
