#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/context.h"
#include "util/result.h"
#include "util/subprocess.h"

namespace kftrain::cli::kube {

// What a kubectl call printed and how it ended.
struct KubectlResult {
    int exit_code = 0;
    std::string out;
    std::string err;
    bool cancelled = false;  // stopped by the caller's cancel flag

    bool ok() const { return exit_code == 0; }
};

// Runs kubectl. Behind an interface so tests and other backends can replace it.
class KubectlRunner {
  public:
    virtual ~KubectlRunner() = default;

    // Run kubectl with these arguments (global flags are added) and stdin text.
    // Fails only when kubectl could not be started at all.
    virtual util::Result<KubectlResult> run(const std::vector<std::string>& args,
                                            const std::string& input = "") = 0;

    // Run kubectl, calling on_line for each stdout line as it arrives, until it exits or
    // cancel (when given) turns true.
    virtual util::Result<KubectlResult> stream(const std::vector<std::string>& args,
                                               const util::LineCallback& on_line,
                                               const std::atomic<bool>* cancel) = 0;
};

// Return the kubectl to run: $KFTRAIN_KUBECTL, else "kubectl" on PATH.
std::string kubectl_program();

// Return the global flags as kubectl arguments (--context, --kubeconfig, ...).
// The namespace is passed separately since some verbs use -A instead.
std::vector<std::string> kubectl_global_args(const GlobalOptions& global);

// Make the runner that spawns the real kubectl with the global flags.
std::unique_ptr<KubectlRunner> make_kubectl_runner(const GlobalOptions& global);

}  // namespace kftrain::cli::kube
