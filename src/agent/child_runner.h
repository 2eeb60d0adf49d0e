#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::agent {

// One kftrain verb a tool runs.
struct ChildRequest {
    std::vector<std::string> args;  // after "kftrain": the verb, its flags and arguments
    std::string input;              // its standard input (a job file's YAML for -f -)
    std::optional<std::chrono::milliseconds> timeout;
    // How long the verb has after a SIGINT, when the call is cancelled, to stop what it started
    // (its kubectl calls, a local measurement or search) before its group is killed.
    std::chrono::milliseconds grace{5000};
    std::function<void(const std::string& line)> on_out;  // each stdout line; empty: kept whole
    std::function<void(const std::string& line)> on_err;  // each stderr line; kept whole too
    // What a verb printed past the output limit (64 MiB) is cut, and the verb stopped; true:
    // what came before is the answer (logs: the call says it is cut), false: an error.
    bool partial_output_ok = false;
};

// How the verb ended.
struct ChildOutcome {
    int code = -1;  // kftrain's exit code (128 + signal when a signal ended it)
    std::string out;
    std::string err;
    bool cancelled = false;
    bool timed_out = false;
    bool out_overflow = false;  // stopped when its stdout passed the limit: out is its start

    // Return kftrain's own message from stderr: its "kftrain: error: " lines without that
    // prefix, else all of stderr, else the exit code.
    std::string message() const;
};

// Runs kftrain verbs as child processes, each in a process group of its own, with the server's
// global flags (--local, --context, --kubeconfig, --request-timeout) added: every tool is the
// CLI's own verb, and stopping a call stops all it started.
class ChildRunner {
  public:
    ChildRunner(std::string kftrain, std::vector<std::string> global_args, std::string cwd)
        : m_kftrain(std::move(kftrain)),
          m_global_args(std::move(global_args)),
          m_cwd(std::move(cwd)) {}

    // Run one verb to its end, or until cancelled turns true.
    util::Result<ChildOutcome> run(const ChildRequest& request,
                                   const std::atomic<bool>& cancelled) const;

  private:
    std::string m_kftrain;
    std::vector<std::string> m_global_args;
    std::string m_cwd;
};

}  // namespace kftrain::agent
