#pragma once

// The permissions kftrain needs in a namespace, asked as `kubectl auth can-i` asks them: one
// SelfSubjectAccessReview per verb and resource, sent together. Pure: the backend sends them.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "doctor/report.h"

namespace kftrain::doctor {

// A resource and the verbs kftrain uses on it, and what for.
struct Access {
    std::string group;        // "" for the core API
    std::string resource;     // "pytorchjobs", "pods"
    std::string subresource;  // "log", "exec"; "" for none
    std::vector<std::string> verbs;
    std::string why;     // "submit, status, delete": what fails without it
    bool needed = true;  // false for what only some verbs use (data staging, Katib, Kueue)
};

// Return the resource as kubectl names it: "pytorchjobs.kubeflow.org", "pods/log".
std::string access_name(const Access& access);

// Return what kftrain needs: on each served job resource (plural.group), and on pods, their
// logs, events, ConfigMaps (code), claims, pods/exec (data staging); tunes and queues add
// Katib's and Kueue's where served.
std::vector<Access> needed_access(const std::vector<std::string>& job_resources, bool katib,
                                  bool kueue);

// Return the List of SelfSubjectAccessReviews, one per verb of each access, in order.
nlohmann::json access_reviews(const std::vector<Access>& accesses, const std::string& ns);

// Read what the API server answered (the List `kubectl create -o json` prints, or one review
// when there was one): a check per resource, ok when every verb is allowed, failed naming the
// verbs denied. An answer that does not match what was asked fails every check, saying so.
std::vector<Check> access_checks(const std::vector<Access>& accesses, const nlohmann::json& answer,
                                 const std::string& ns);

}  // namespace kftrain::doctor
