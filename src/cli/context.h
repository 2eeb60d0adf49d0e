#pragma once

#include "job/context.h"
#include "util/result.h"

namespace kftrain::cli {

// Flags every verb accepts, forwarded to every kubectl call: the backend options.
using GlobalOptions = job::BackendOptions;
// What a verb runs with: its output streams, the global flags, and the exit code it sets.
using Context = job::Context;
using job::report_error;

// Check the global flags every verb takes, before the verb runs: --request-timeout is a
// duration kubectl takes (30s, 2m, 0), -n a DNS-1123 label, and --local comes without
// --context and --kubeconfig (which name a cluster). The message names the flag and value.
util::Status check_global_options(const GlobalOptions& global);

}  // namespace kftrain::cli
