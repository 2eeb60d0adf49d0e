#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "job/context.h"
#include "util/result.h"
#include "util/run.h"

namespace kftrain::backend::kube {

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

    // Run kubectl with these arguments (global flags are added) and stdin text. Fails when
    // kubectl could not be started, did not end within its time (call_limit), printed more
    // than kftrain keeps, or was killed by a signal: kubectl and all it started are ended then.
    virtual util::Result<KubectlResult> run(const std::vector<std::string>& args,
                                            const std::string& input = "") = 0;

    // Run kubectl, calling on_line for each stdout line as it arrives, until it exits or
    // cancel (when given) turns true; a stream has no time limit but the runner's give-up time.
    virtual util::Result<KubectlResult> stream(const std::vector<std::string>& args,
                                               const util::LineCallback& on_line,
                                               const std::atomic<bool>* cancel) = 0;
};

using Clock = std::chrono::steady_clock;

// Return the longest kftrain lets one kubectl call with these arguments run: a little more
// than --request-timeout (request_timeout as kubectl takes it, "" when not given), else a
// default for kubectl's verb (get: 1m, apply: 2m, delete --wait: 5m); nullopt for no limit
// (--request-timeout 0).
std::optional<std::chrono::milliseconds> call_limit(const std::string& request_timeout,
                                                    const std::vector<std::string>& args);

// Return the kubectl to run: $KFTRAIN_KUBECTL, else "kubectl" on PATH.
std::string kubectl_program();

// Return the global flags as kubectl arguments (--context, --kubeconfig, ...).
// The namespace is passed separately since some verbs use -A instead.
std::vector<std::string> kubectl_global_args(const job::BackendOptions& global);

// Return the arguments that apply the object on stdin server-side, as kftrain's own field
// manager (taking over fields another manager set; an object submitted before by a
// client-side apply too), in namespace_ ("": the object's own). A client-side apply copies the
// whole object into its last-applied annotation, and annotations hold 256 KiB: a job that
// mounts a few thousand code files is more (docs/limits.md).
std::vector<std::string> server_side_apply_args(const std::string& namespace_, bool dry_run_server);

// Make the runner that spawns the real kubectl with the global flags. With give_up_at, no
// call runs past it (for `wait --timeout`).
std::unique_ptr<KubectlRunner> make_kubectl_runner(
    const job::BackendOptions& global, std::optional<Clock::time_point> give_up_at = std::nullopt);

}  // namespace kftrain::backend::kube
