#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend/kube/kubectl.h"
#include "backend/kube/status/events.h"
#include "job/status.h"
#include "manifest/job_kind.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// The kubectl reads the cluster verbs need, in one namespace ("" is the
// context's). Failures carry exit code 3 (not found) or 4 (cluster, kubectl).
class KubeQueries {
  public:
    // Query through this runner in namespace ns.
    KubeQueries(KubectlRunner& kubectl, std::string ns);

    // Return `-n ns`, or nothing when the namespace is the context's.
    std::vector<std::string> namespace_args() const;
    // Return "namespace ml" or "the current namespace", for messages.
    std::string namespace_text() const;
    // A job's pods as replicas, and the selector that found them ("" when none did).
    struct PodListing {
        std::vector<job::ReplicaStatus> replicas;
        std::string selector;
    };
    // Return the job's pods, from the first of these selectors that finds any.
    util::Result<PodListing> pods(const std::string& job,
                                  const std::vector<std::string>& selectors);
    // Return the events about these objects last seen since a time (RFC 3339; "": any), oldest
    // first (none when unreadable).
    std::vector<KubeEvent> events(const std::set<std::string>& objects, const std::string& since);
    // What the recent log of a pod's container says of the run: its last progress line and
    // its last checkpoint event, each if any.
    struct LogReading {
        std::optional<job::Progress> progress;
        std::optional<job::CheckpointReport> checkpoint;
    };
    // Read the recent log of a pod's container; an error when it could not be read (not the
    // same as a log without progress).
    util::Result<LogReading> progress(const std::string& pod, const std::string& container);
    // Return whether the cluster serves a kind's resource (`kubectl api-resources`).
    bool serves(manifest::JobKind kind);
    // Run kubectl (in the namespace unless in_namespace is false); an error only when it
    // could not be run at all. The caller reads how it ended.
    util::Result<KubectlResult> call(const std::vector<std::string>& args, bool in_namespace = true,
                                     const std::string& input = "");
    // Run kubectl; turn a failure into one line that names the action.
    util::Result<std::string> run(const std::vector<std::string>& args, const std::string& action,
                                  const std::string& input = "");

  private:
    util::Result<std::vector<job::ReplicaStatus>> pods_by(const std::string& job,
                                                          const std::string& selector);

    KubectlRunner& m_kubectl;
    std::string m_namespace;
};

// Return the names of the namespace's objects of a resource (`kubectl get RESOURCE -o name`,
// "experiment.kubeflow.org/mnist-tune" read as "mnist-tune").
util::Result<std::vector<std::string>> object_names(KubeQueries& queries,
                                                    const std::string& resource);

// Turn a failed kubectl call into an error with exit code 3 (not found) or 4.
util::Error kubectl_failure(const KubectlResult& result, const std::string& action);

}  // namespace kftrain::backend::kube
