#pragma once

#include <ostream>
#include <string>

#include "util/result.h"

namespace kftrain::cli {

// Flags every verb accepts, forwarded to every kubectl call.
struct GlobalOptions {
    std::string namespace_;       // -n/--namespace; empty: the job file's or kubectl's
    std::string context;          // --context
    std::string kubeconfig;       // --kubeconfig
    std::string request_timeout;  // --request-timeout, as kubectl takes it ("30s")
    bool local = false;           // --local: run on this machine
};

// What a verb runs with: its output streams, the global flags, and the exit
// code it sets.
struct Context {
    std::ostream& out;
    std::ostream& err;
    GlobalOptions global;
    int exit_code = 0;
};

// Check the global flags every verb takes, before the verb runs: --request-timeout is a
// duration kubectl takes (30s, 2m, 0), -n a DNS-1123 label, and --local comes without
// --context and --kubeconfig (which name a cluster). The message names the flag and value.
util::Status check_global_options(const GlobalOptions& global);

// Print "kftrain: error: <message>" to err and return code.
int report_error(Context& ctx, const std::string& message, int code);

}  // namespace kftrain::cli
