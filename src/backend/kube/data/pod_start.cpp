#include "backend/kube/data/pod_start.h"

#include "backend/kube/json_fields.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

using backend::kube::member;
using backend::kube::string_at;

bool has(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

// The condition of this type in the pod's status, null when none.
const nlohmann::json& condition(const nlohmann::json& pod, const std::string& type) {
    static const nlohmann::json k_none;
    const auto& conditions = member(member(pod, "status"), "conditions");
    if (conditions.is_array()) {
        for (const auto& c : conditions) {
            if (string_at(c, "type") == type) {
                return c;
            }
        }
    }
    return k_none;
}

std::optional<StartProblem> image_problem(const nlohmann::json& pod) {
    const auto& statuses = member(member(pod, "status"), "containerStatuses");
    if (!statuses.is_array()) {
        return std::nullopt;
    }
    for (const auto& status : statuses) {
        const auto& waiting = member(member(status, "state"), "waiting");
        const std::string reason = string_at(waiting, "reason");
        if (reason == "ErrImagePull" || reason == "ImagePullBackOff" ||
            reason == "InvalidImageName" || reason == "ErrImageNeverPull") {
            std::string message = string_at(waiting, "message");
            return StartProblem{
                StartProblem::Kind::Image, reason + (message.empty() ? "" : ": " + message), {}};
        }
    }
    return std::nullopt;
}

}  // namespace

bool pod_ready(const nlohmann::json& pod) {
    return string_at(condition(pod, "Ready"), "status") == "True";
}

std::vector<std::string> pods_named_in(const std::string& message) {
    const std::string marker = "used by pod(s) ";
    size_t start = message.find(marker);
    if (start == std::string::npos) {
        return {};
    }
    std::string names = message.substr(start + marker.size());
    if (size_t other = names.find(" and "); other != std::string::npos) {
        names = names.substr(0, other);
    }
    std::vector<std::string> pods;
    for (const auto& name : util::split(names, ',')) {
        if (!name.empty() && name.find(' ') == std::string::npos) {
            pods.push_back(name);
        }
    }
    return pods;
}

std::optional<StartProblem> start_problem(const nlohmann::json& pod,
                                          const std::vector<backend::kube::KubeEvent>& events) {
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
        if (it->reason == "FailedAttachVolume" && has(it->message, "Multi-Attach error")) {
            return StartProblem{StartProblem::Kind::ClaimInUse, it->message,
                                pods_named_in(it->message)};
        }
        if (it->reason == "FailedScheduling" && has(it->message, "ReadWriteOncePod")) {
            return StartProblem{StartProblem::Kind::ClaimInUse, it->message, {}};
        }
    }
    const auto& scheduled = condition(pod, "PodScheduled");
    if (string_at(scheduled, "reason") == "Unschedulable" &&
        has(string_at(scheduled, "message"), "ReadWriteOncePod")) {
        return StartProblem{StartProblem::Kind::ClaimInUse, string_at(scheduled, "message"), {}};
    }
    if (auto image = image_problem(pod)) {
        return image;
    }
    const auto& status = member(pod, "status");
    if (string_at(status, "phase") == "Failed") {
        std::string why = string_at(status, "reason");
        std::string message = string_at(status, "message");
        return StartProblem{StartProblem::Kind::Failed,
                            why.empty() ? std::string("phase Failed")
                                        : why + (message.empty() ? "" : ": " + message),
                            {}};
    }
    return std::nullopt;
}

std::vector<std::string> pods_using_claim(const nlohmann::json& pods, const std::string& claim,
                                          const std::string& skip) {
    std::vector<std::string> running;
    std::vector<std::string> others;
    const auto& items = member(pods, "items");
    if (!items.is_array()) {
        return {};
    }
    for (const auto& pod : items) {
        const std::string name = string_at(member(pod, "metadata"), "name");
        const auto& volumes = member(member(pod, "spec"), "volumes");
        if (name == skip || !volumes.is_array()) {
            continue;
        }
        bool uses = false;
        for (const auto& volume : volumes) {
            uses = uses || string_at(member(volume, "persistentVolumeClaim"), "claimName") == claim;
        }
        const std::string phase = string_at(member(pod, "status"), "phase");
        if (!uses || phase == "Succeeded" || phase == "Failed") {
            continue;
        }
        const std::string node = string_at(member(pod, "spec"), "nodeName");
        (phase == "Running" ? running : others)
            .push_back(node.empty() ? name : name + " on node " + node);
    }
    running.insert(running.end(), others.begin(), others.end());
    return running;
}

std::string last_warning(const std::vector<backend::kube::KubeEvent>& events) {
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
        if (it->type == "Warning") {
            return it->reason + ": " + it->message;
        }
    }
    return "";
}

}  // namespace kftrain::backend::kube
