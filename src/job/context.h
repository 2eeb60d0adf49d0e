#pragma once

#include <ostream>
#include <string>

#include "manifest/job_spec.h"

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
    // Answer from the job's record in history even when the job lives (--from-history: a
    // cluster's logs, status, describe and diagnose).
    bool from_history = false;
};

// Return whether a job asks to run on this machine: --local, or its job file's backend key
// "local". The one rule of the verbs that price or word a job by where it runs; the selector
// (backend/select.h) also runs a job here when no cluster is configured.
inline bool asks_local(const BackendOptions& global, const std::string& job_backend) {
    return global.local || job_backend == manifest::k_backend_local;
}

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
