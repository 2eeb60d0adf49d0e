#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diagnose/evidence.h"

namespace kftrain::diagnose {

// The API server's refusal of a pod at creation by a ResourceQuota's admission, as the
// controller that tried to create it records it in a Warning event: the Training Operator's
// FailedCreatePod on the job, the Job controller's FailedCreate on a JobSet's Job. Both say
// "Error creating: " and the API server's words:
//   pods "p5" is forbidden: exceeded quota: team-quota, requested: requests.cpu=400m,
//     used: requests.cpu=900m, limited: requests.cpu=1
//   pods "x" is forbidden: failed quota: team-quota: must specify limits.cpu,limits.memory

// One resource over its quota: what the pod asked, what the namespace used, the quota's hard.
struct QuotaAmount {
    std::string resource;  // requests.cpu, limits.memory, requests.nvidia.com/gpu, pods
    std::string requested;
    std::string used;
    std::string limited;
};

// A pod refused by a quota.
struct QuotaRefusal {
    std::string quota;                      // the ResourceQuota's name
    std::string pod;                        // the pod refused, as the API server named it
    std::vector<QuotaAmount> amounts;       // exceeded quota: each resource over; empty when
                                            // the numbers could not be read (a cut message)
    std::vector<std::string> must_specify;  // failed quota: what the pod must set
};

// Parse an event's message (or the API server's error alone) into the quota refusal it
// reports; nullopt when it is none. Strict and bounded: the quota's name must be a Kubernetes
// name, the three lists must name the same resources as key=value pairs, or the amounts are
// left empty; a message cut anywhere, or any text at all, gives a value or nullopt.
std::optional<QuotaRefusal> parse_quota_refusal(const std::string& message);

// Pods of a job that a quota refused: the newest refusal among its events, and how many of
// its pods exist.
struct QuotaFinding {
    QuotaRefusal refusal;
    std::string object;   // what the event is about: the job, or one of its JobSet's Jobs
    std::string reason;   // FailedCreatePod (Training Operator), FailedCreate (Job controller)
    std::string message;  // the event's message as recorded
    std::string time;
    int wanted = 0;   // pods the job asks for; 0: unknown
    int created = 0;  // its pods that exist
    int running = 0;  // of them, running
};

// Find the quota that refused pods of a job: a Warning FailedCreatePod or FailedCreate event
// about the job or an object named after it (a JobSet's Job, "<job>-node-0") whose message
// parse_quota_refusal reads, while fewer of its pods exist than it asks for (none, when that
// is unknown). nullopt when none did.
std::optional<QuotaFinding> find_quota_refusal(const JobEvidence& job);

// Return the finding as one line: "quota team-quota refused 2 of 4 pods: requests.cpu asked
// 400m, used 900m of 1 (2 running, 2 not created)".
std::string quota_why(const QuotaFinding& found);

// Return the amounts as "requests.cpu asked 400m, used 900m of 1", joined with "; ".
std::string describe_amounts(const std::vector<QuotaAmount>& amounts);

}  // namespace kftrain::diagnose
