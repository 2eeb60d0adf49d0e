#pragma once

#include <set>
#include <string>
#include <vector>

#include "diagnose/evidence.h"
#include "job/status.h"

namespace kftrain::backend::kube {

// One Kubernetes event about the job or one of its pods.
struct KubeEvent {
    std::string kind;    // PyTorchJob, Pod
    std::string object;  // the object's name
    std::string type;    // Normal or Warning
    std::string reason;  // FailedScheduling, BackOff, ...
    std::string message;
    std::string time;  // the latest of lastTimestamp, eventTime, firstTimestamp
    int count = 1;
};

// Read `kubectl get events -o json`, keeping those about the named objects last seen at or
// after since (an RFC 3339 time, to the second; "": any), oldest first (newest last, as
// describe shows them). Unreadable text gives none. A job's since is its creation: events
// about an earlier job of the same name and its pods (the API keeps them for an hour) are
// not its own.
std::vector<KubeEvent> parse_events(const std::string& json_text,
                                    const std::set<std::string>& objects,
                                    const std::string& since = "");

// Explain why a job is pending or failing, one line per replica with a
// problem: unschedulable, image pull, crash loop, waiting for the master in
// init-pytorch, or a failed container; the reason comes from the pod or, when
// it has none, its newest warning event.
std::vector<std::string> diagnose(const job::JobStatus& status,
                                  const std::vector<KubeEvent>& events);

// Return the events as a diagnosis reads them.
std::vector<diagnose::EventEvidence> event_evidence(const std::vector<KubeEvent>& events);

// Return whether a replica needs the events to explain it (pending with no reason).
bool needs_events(const job::ReplicaStatus& replica);

}  // namespace kftrain::backend::kube
