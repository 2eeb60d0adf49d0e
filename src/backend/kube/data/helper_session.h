#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/kube/data/helper_pod.h"
#include "backend/kube/data/pod_start.h"
#include "backend/kube/kubectl.h"
#include "job/context.h"
#include "job/reporter.h"
#include "staging/claim_path.h"
#include "staging/listing.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// One helper pod's life: the claim checked, the pod applied and waited for, commands run in
// it, and the pod deleted when the session ends, however it ends.
class HelperSession {
  public:
    // A session on target's claim; `writes` mounts it read-write (put).
    HelperSession(const job::BackendOptions& global, job::Reporter& report,
                  const job::ClaimTarget& target, bool writes);
    // Delete the pod if one was applied (kubectl delete --wait=false); a failure is a warning.
    ~HelperSession();
    HelperSession(const HelperSession&) = delete;
    HelperSession& operator=(const HelperSession&) = delete;

    // Check the claim exists: NotFound is exit 3 naming the claim and namespace.
    util::Status check_claim();
    // Apply the pod and wait until it is Ready: exit 4 when the claim is in use on another
    // node (naming the pods that hold it) or the image cannot be pulled, 5 past the deadline,
    // 130 on Ctrl-C.
    util::Status start();
    // Run a command in the pod and return its stdout; a failure is exit 4 with its stderr.
    util::Result<backend::kube::KubectlResult> exec(const std::vector<std::string>& command);
    // Return the whole kubectl command line that runs command in the pod (-i: with stdin).
    std::vector<std::string> exec_argv(const std::vector<std::string>& command,
                                       bool with_stdin) const;
    // List what is under the target's path in the pod: exit 3 when it does not exist.
    util::Result<job::Listing> list();

    const std::string& pod_name() const { return m_pod.name; }

  private:
    std::vector<std::string> ns_args() const;
    std::vector<std::string> exec_args(const std::vector<std::string>& command,
                                       bool with_stdin) const;
    util::Result<std::string> namespace_words();
    util::Status explain_blocked(const StartProblem& problem);
    util::Status check_once(bool& ready, std::string& last_warning);

    job::BackendOptions m_global;
    job::Reporter& m_report;
    job::ClaimTarget m_target;
    HelperPod m_pod;
    std::unique_ptr<backend::kube::KubectlRunner> m_kubectl;
    bool m_applied = false;
};

}  // namespace kftrain::backend::kube
