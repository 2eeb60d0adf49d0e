#pragma once

#include <ostream>
#include <string>

namespace kftrain::job {

// Where a job runs and how to reach it: what a backend needs of the global flags, and nothing
// of the command line that set them (the CLI fills it from -n, --context, --kubeconfig,
// --request-timeout and --local).
struct BackendOptions {
    std::string namespace_;       // empty: the job file's or kubectl's
    std::string context;          // kubeconfig context
    std::string kubeconfig;       // kubeconfig file
    std::string request_timeout;  // as kubectl takes it ("30s")
    bool local = false;           // run on this machine
};

// What an operation runs with: its output streams, the backend options, and the exit code it
// sets. Verbs get one from the command line; the supervisor and the MCP server make their own.
struct Context {
    std::ostream& out;
    std::ostream& err;
    BackendOptions global;
    int exit_code = 0;
};

// Print "kftrain: error: <message>" (control bytes escaped) to err and return code.
int report_error(Context& ctx, const std::string& message, int code);

}  // namespace kftrain::job
