#include "backend/kube/status/events.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "backend/kube/json_fields.h"
#include "util/json_text.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

KubeEvent event_from(const json& item) {
    KubeEvent event;
    const json& involved = item.contains("involvedObject") ? item["involvedObject"] : json();
    event.kind = string_at(involved, "kind");
    event.object = string_at(involved, "name");
    event.type = string_at(item, "type");
    event.reason = string_at(item, "reason");
    event.message = string_at(item, "message");
    for (const char* key : {"lastTimestamp", "eventTime", "firstTimestamp"}) {
        event.time = std::max(event.time, string_at(item, key));
    }
    auto count = item.find("count");
    if (count != item.end() && count->is_number_integer()) {
        event.count = util::json_number<int>(*count).value_or(1);
    }
    // Events of the events.k8s.io API (the scheduler's) carry no count or lastTimestamp: a
    // repeat is counted in series, with the time it was last seen.
    const json& series = item.contains("series") ? item["series"] : json();
    if (series.is_object()) {
        auto repeats = series.find("count");
        if (repeats != series.end() && repeats->is_number_integer()) {
            event.count = std::max(event.count, util::json_number<int>(*repeats).value_or(1));
        }
        event.time = std::max(event.time, string_at(series, "lastObservedTime"));
    }
    return event;
}

// Whether an event only names the error of another: the kubelet follows each "Failed to pull
// image ...: <why>" with "Error: ErrImagePull", and each back-off with "Error: ImagePullBackOff".
bool names_only_an_error(const KubeEvent& event) {
    const std::string prefix = "Error: ";
    return event.message.rfind(prefix, 0) == 0 &&
           event.message.find(' ', prefix.size()) == std::string::npos;
}

// The newest warning event about a pod that says why, else the newest at all, if any.
const KubeEvent* newest_warning(const std::vector<KubeEvent>& events, const std::string& pod) {
    const KubeEvent* found = nullptr;
    const KubeEvent* saying_why = nullptr;
    for (const auto& event : events) {
        if (event.object == pod && event.type == "Warning") {
            found = &event;
            saying_why = names_only_an_error(event) ? saying_why : &event;
        }
    }
    return saying_why != nullptr ? saying_why : found;
}

std::string with_message(std::string line, const std::string& message) {
    return message.empty() ? line : line + ": " + message;
}

// One replica's problem as a line, or "" when it has none.
std::string replica_problem(const job::ReplicaStatus& r, const std::vector<KubeEvent>& events) {
    const std::string& reason = r.reason;
    if (reason == "Init:init-pytorch") {
        return fmt::format("{}: waiting in init container init-pytorch for the master to start",
                           r.name);
    }
    if (reason == "CrashLoopBackOff") {
        std::string exit = r.exit_code ? fmt::format(", last exit code {}", *r.exit_code) : "";
        if (!r.last_reason.empty() && r.last_reason != "Error") {
            exit += " (" + r.last_reason + ")";
        }
        return fmt::format(
            "{}: CrashLoopBackOff: the container keeps crashing (restarted {} "
            "times{}); see 'kftrain logs --previous --replica {}'",
            r.name, r.restarts, exit, r.name);
    }
    if (reason == "ImagePullBackOff" || reason == "ErrImagePull") {
        // The kubelet's "Failed" event says why the pull failed; the back-off message does not.
        const KubeEvent* warning = newest_warning(events, r.pod);
        return with_message(fmt::format("{}: {}", r.name, reason),
                            warning != nullptr ? warning->message : r.message);
    }
    if (reason == "InvalidImageName" || reason == "Unschedulable" ||
        reason.rfind("Init:", 0) == 0 || reason == "CreateContainerConfigError") {
        const KubeEvent* warning = newest_warning(events, r.pod);
        std::string message = !r.message.empty() ? r.message : warning ? warning->message : "";
        return with_message(fmt::format("{}: {}", r.name, reason), message);
    }
    if (r.state == "Pending") {
        const KubeEvent* warning = newest_warning(events, r.pod);
        if (warning != nullptr) {
            return with_message(fmt::format("{}: Pending: {}", r.name, warning->reason),
                                warning->message);
        }
        return reason.empty() || reason == "ContainerCreating"
                   ? ""
                   : fmt::format("{}: Pending: {}", r.name, reason);
    }
    if (r.state == "Failed" ||
        (r.exit_code && *r.exit_code != 0 && r.state != "Running" && r.state != "Restarting")) {
        std::string exit = r.exit_code ? fmt::format(", exit code {}", *r.exit_code) : "";
        return with_message(
            fmt::format("{}: Failed ({}{})", r.name, reason.empty() ? "Error" : reason, exit),
            r.message);
    }
    return "";
}

}  // namespace

std::vector<KubeEvent> parse_events(const std::string& json_text,
                                    const std::set<std::string>& objects,
                                    const std::string& since) {
    // Seconds are the coarsest precision of either time ("...:01Z" and "...:01.123456Z").
    const std::string since_second = since.substr(0, 19);
    std::vector<KubeEvent> events;
    json parsed = util::parse_untrusted_json(json_text);
    if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("items") ||
        !parsed["items"].is_array()) {
        return events;
    }
    for (const auto& item : parsed["items"]) {
        KubeEvent event = event_from(item);
        if (objects.count(event.object) > 0 && event.time.substr(0, 19) >= since_second) {
            events.push_back(std::move(event));
        }
    }
    std::stable_sort(events.begin(), events.end(),
                     [](const auto& a, const auto& b) { return a.time < b.time; });
    return events;
}

std::vector<std::string> diagnose(const job::JobStatus& status,
                                  const std::vector<KubeEvent>& events) {
    std::vector<std::string> lines;
    for (const auto& replica : status.replicas) {
        std::string problem = replica_problem(replica, events);
        if (!problem.empty()) {
            lines.push_back(problem);
        }
    }
    bool created = status.phase == job::JobPhase::Created || status.phase == job::JobPhase::Unknown;
    if (lines.empty() && created && status.replicas.empty() && status.replicas_wanted > 0) {
        const KubeEvent* warning = nullptr;
        for (const auto& event : events) {
            if (event.object == status.name && event.type == "Warning") {
                warning = &event;
            }
        }
        lines.push_back(warning ? with_message("no pods yet: " + warning->reason, warning->message)
                                : "no pods yet: the operator has not created them");
    }
    return lines;
}

bool needs_events(const job::ReplicaStatus& replica) {
    return replica.state == "Pending" || replica.reason == "ImagePullBackOff" ||
           replica.reason == "ErrImagePull";
}

std::vector<diagnose::EventEvidence> event_evidence(const std::vector<KubeEvent>& events) {
    std::vector<diagnose::EventEvidence> evidence;
    for (const KubeEvent& e : events) {
        evidence.push_back({e.object, e.reason, e.message, e.time, e.type == "Warning"});
    }
    return evidence;
}

}  // namespace kftrain::backend::kube
