#include "doctor/access.h"

#include <fmt/format.h>

#include "util/json_fields.h"

namespace kftrain::doctor {

std::string access_name(const Access& access) {
    std::string name = access.resource + (access.group.empty() ? "" : "." + access.group);
    return access.subresource.empty() ? name : name + "/" + access.subresource;
}

std::vector<Access> needed_access(const std::vector<std::string>& job_resources, bool katib,
                                  bool kueue) {
    std::vector<Access> out;
    for (const std::string& plural_group : job_resources) {
        const size_t dot = plural_group.find('.');
        out.push_back({dot == std::string::npos ? "" : plural_group.substr(dot + 1),
                       plural_group.substr(0, dot),
                       "",
                       {"create", "get", "list", "watch", "patch", "delete"},
                       "submit, status, list, suspend, delete"});
    }
    out.push_back({"", "pods", "", {"get", "list"}, "status, describe, logs"});
    out.push_back({"", "pods", "log", {"get"}, "logs, status's progress, diagnose"});
    out.push_back({"", "events", "", {"list"}, "describe, diagnose"});
    out.push_back({"",
                   "configmaps",
                   "",
                   {"create", "get", "patch", "delete"},
                   "submit of a job that ships code"});
    out.push_back({"", "persistentvolumeclaims", "", {"get", "list"}, "data, volumes"});
    out.push_back({"", "pods", "exec", {"create"}, "data put, get and ls", false});
    if (katib) {
        out.push_back({"kubeflow.org",
                       "experiments",
                       "",
                       {"create", "get", "list", "delete"},
                       "tune",
                       false});
    }
    if (kueue) {
        out.push_back({"kueue.x-k8s.io",
                       "localqueues",
                       "",
                       {"get", "list"},
                       "queues, submit --queue",
                       false});
        out.push_back({"kueue.x-k8s.io", "workloads", "", {"list"}, "list --queue", false});
    }
    return out;
}

nlohmann::json access_reviews(const std::vector<Access>& accesses, const std::string& ns) {
    nlohmann::json items = nlohmann::json::array();
    for (const Access& access : accesses) {
        for (const std::string& verb : access.verbs) {
            nlohmann::json attributes = {{"namespace", ns},
                                         {"verb", verb},
                                         {"group", access.group},
                                         {"resource", access.resource}};
            if (!access.subresource.empty()) {
                attributes["subresource"] = access.subresource;
            }
            items.push_back({{"apiVersion", "authorization.k8s.io/v1"},
                             {"kind", "SelfSubjectAccessReview"},
                             {"spec", {{"resourceAttributes", attributes}}}});
        }
    }
    return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

std::vector<Check> access_checks(const std::vector<Access>& accesses, const nlohmann::json& answer,
                                 const std::string& ns) {
    // Read with the lenient readers: kubectl's answer is from outside, and a List whose items
    // is no list (or a kind that is no string) reads as no answer, never an exception.
    const bool list = util::string_at(answer, "kind") == "List";
    const nlohmann::json& items = util::member(answer, "items");
    static const nlohmann::json k_none;
    const nlohmann::json reviews = !list              ? nlohmann::json::array({answer})
                                   : items.is_array() ? items
                                                      : nlohmann::json::array();
    size_t asked = 0;
    for (const Access& access : accesses) {
        asked += access.verbs.size();
    }
    std::vector<Check> out;
    size_t at = 0;
    for (const Access& access : accesses) {
        std::vector<std::string> denied;
        bool read = true;
        for (const std::string& verb : access.verbs) {
            const nlohmann::json* review = at < reviews.size() ? &reviews[at] : nullptr;
            ++at;
            const nlohmann::json& allowed =
                util::member(util::member(review ? *review : k_none, "status"), "allowed");
            if (reviews.size() != asked || !allowed.is_boolean()) {
                read = false;
            } else if (!allowed.get<bool>()) {
                denied.push_back(verb);
            }
        }
        const std::string name = access_name(access);
        const std::string verbs = fmt::format("{}", fmt::join(access.verbs, ", "));
        if (!read) {
            out.push_back(check("permissions", name, State::Failed,
                                "the API server's answer to the access reviews could not be read",
                                "kubectl auth can-i --list -n " + ns, access.needed));
        } else if (denied.empty()) {
            out.push_back(
                check("permissions", name, State::Ok, verbs + ": allowed", "", access.needed));
        } else {
            out.push_back(check(
                "permissions", name, State::Failed,
                fmt::format("{} denied (needed by {})", fmt::join(denied, ", "), access.why),
                fmt::format("a Role in {} granting {} on {}, bound to you (kubectl auth can-i {} "
                            "{} -n {})",
                            ns, fmt::join(denied, ", "), name, denied.front(), name, ns),
                access.needed));
        }
    }
    return out;
}

}  // namespace kftrain::doctor
