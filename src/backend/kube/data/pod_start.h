#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backend/kube/status/events.h"

namespace kftrain::backend::kube {

// Why the helper pod cannot start, as its status and events say.
struct StartProblem {
    enum class Kind {
        ClaimInUse,  // a ReadWriteOnce(Pod) claim is attached elsewhere (Multi-Attach)
        Image,       // the image cannot be pulled
        Failed,      // the pod failed
    };
    Kind kind = Kind::Failed;
    std::string message;               // Kubernetes' own words
    std::vector<std::string> holders;  // pods the message names as using the claim
};

// Return whether the pod's Ready condition is True.
bool pod_ready(const nlohmann::json& pod);

// Return what keeps the pod from ever starting: a Multi-Attach error (FailedAttachVolume) or
// a claim held by a ReadWriteOncePod user (FailedScheduling), an image that cannot be pulled,
// a Failed phase; nullopt while it may still start.
std::optional<StartProblem> start_problem(const nlohmann::json& pod,
                                          const std::vector<backend::kube::KubeEvent>& events);

// Return the pods a Multi-Attach message names: "... Volume is already used by pod(s) a, b
// and 1 pod(s) in different namespaces" gives a and b.
std::vector<std::string> pods_named_in(const std::string& message);

// Return the pods of a `get pods -o json` List that mount the claim, other than skip, as
// "name on node N" ("name" when not scheduled), running ones first.
std::vector<std::string> pods_using_claim(const nlohmann::json& pods, const std::string& claim,
                                          const std::string& skip);

// Return the newest warning among events as "Reason: message", "" when none.
std::string last_warning(const std::vector<backend::kube::KubeEvent>& events);

}  // namespace kftrain::backend::kube
