#include "backend/kube/status/describe.h"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "backend/kube/json_fields.h"
#include "inspect/status_json.h"
#include "manifest/code.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

job::DescribePart conditions_part(const json& job) {
    job::DescribeTable table{"Conditions",
                             {"TYPE", "STATUS", "REASON", "LAST TRANSITION", "MESSAGE"}};
    const json& conditions = member(member(job, "status"), "conditions");
    if (conditions.is_array()) {
        for (const auto& condition : conditions) {
            table.rows.push_back({string_at(condition, "type"), string_at(condition, "status"),
                                  string_at(condition, "reason"),
                                  string_at(condition, "lastTransitionTime"),
                                  string_at(condition, "message")});
        }
    }
    return {{}, std::move(table)};
}

// A TrainJob's runtime and nodes, and the child Jobs of each step as jobsStatus counts them.
std::vector<job::DescribePart> trainjob_parts(const json& job) {
    const json& spec = member(job, "spec");
    const json& runtime = member(spec, "runtimeRef");
    const json& nodes = member(member(spec, "trainer"), "numNodes");
    job::DescribePart about;
    about.fields = {{"Runtime", string_at(runtime, "kind") + "/" + string_at(runtime, "name")},
                    {"Num nodes", nodes.is_number_integer() ? std::to_string(nodes.get<int>())
                                                            : "- (the runtime's)"}};
    job::DescribeTable table{"Jobs",
                             {"STEP", "ACTIVE", "READY", "SUCCEEDED", "FAILED", "SUSPENDED"}};
    const json& jobs_status = member(member(job, "status"), "jobsStatus");
    if (jobs_status.is_array()) {
        for (const auto& jobs : jobs_status) {
            table.rows.push_back({string_at(jobs, "name"), std::to_string(int_at(jobs, "active")),
                                  std::to_string(int_at(jobs, "ready")),
                                  std::to_string(int_at(jobs, "succeeded")),
                                  std::to_string(int_at(jobs, "failed")),
                                  std::to_string(int_at(jobs, "suspended"))});
        }
    }
    return {std::move(about), {{}, std::move(table)}};
}

job::DescribePart events_part(const std::vector<KubeEvent>& events, std::time_t now) {
    job::DescribeTable table("Events", {"TYPE", "REASON", "AGE", "OBJECT", "MESSAGE"},
                             "none (events expire after an hour by default)");
    for (const auto& event : events) {
        auto at = util::parse_timestamp(event.time);
        std::string age = at ? util::format_duration(std::difftime(now, *at)) : "-";
        if (event.count > 1) {
            age += fmt::format(" (x{})", event.count);
        }
        std::string kind = event.kind.empty() ? "?" : util::to_lower(event.kind);
        table.rows.push_back(
            {event.type, event.reason, age, kind + "/" + event.object, event.message});
    }
    return {{}, std::move(table)};
}

// The code a job ships (docs/code.md), as its pod templates mount it.
struct ShippedCode {
    std::string config_map;  // <job>-code-<hash>
    std::string hash;
    size_t files = 0;
};

// Find the code volume anywhere in the job's pod templates (each kind keeps them elsewhere: a
// replica spec's template, a TrainJob's runtimePatches): the first "volumes" entry named
// kftrain-code with a ConfigMap. The object is kubectl's, already bounded in depth.
std::optional<ShippedCode> shipped_code(const json& node) {
    if (node.is_object()) {
        const json& volumes = member(node, "volumes");
        if (volumes.is_array()) {
            for (const auto& volume : volumes) {
                const json& map = member(volume, "configMap");
                if (string_at(volume, "name") == manifest::k_code_volume && map.is_object()) {
                    ShippedCode code;
                    code.config_map = string_at(map, "name");
                    const size_t at = code.config_map.rfind("-code-");
                    code.hash = at == std::string::npos ? "" : code.config_map.substr(at + 6);
                    const json& items = member(map, "items");
                    code.files = items.is_array() ? items.size() : 0;
                    return code;
                }
            }
        }
    }
    if (node.is_object() || node.is_array()) {
        for (const auto& child : node) {
            if (auto found = shipped_code(child)) {
                return found;
            }
        }
    }
    return std::nullopt;
}

json event_data(const KubeEvent& event) {
    return {{"type", event.type},      {"reason", event.reason}, {"time", event.time},
            {"count", event.count},    {"kind", event.kind},     {"object", event.object},
            {"message", event.message}};
}

}  // namespace

std::vector<job::DescribePart> describe_parts(const json& job, const std::vector<KubeEvent>& events,
                                              std::time_t now) {
    std::vector<job::DescribePart> parts;
    if (string_at(job, "kind") == "TrainJob") {
        parts = trainjob_parts(job);
    }
    if (auto code = shipped_code(job)) {
        parts.push_back(
            {{{"Code", fmt::format("{} ({}), configmap/{}", code->hash,
                                   util::counted(static_cast<long long>(code->files), "file"),
                                   code->config_map)}},
             std::nullopt});
    }
    parts.push_back(conditions_part(job));
    parts.push_back(events_part(events, now));
    return parts;
}

json describe_data(const job::JobStatus& status, const json& job,
                   const std::vector<KubeEvent>& events, std::time_t now) {
    json data = inspect::status_to_json(status, now);
    if (string_at(job, "kind") == "TrainJob") {
        const json& spec = member(job, "spec");
        const json& runtime = member(spec, "runtimeRef");
        const json& nodes = member(member(spec, "trainer"), "numNodes");
        const json& jobs_status = member(member(job, "status"), "jobsStatus");
        data["runtime"] = {{"kind", string_at(runtime, "kind")},
                           {"name", string_at(runtime, "name")}};
        data["numNodes"] = nodes.is_number_integer() ? nodes : json(nullptr);
        data["jobsStatus"] = jobs_status.is_array() ? jobs_status : json::array();
    }
    if (auto code = shipped_code(job)) {
        data["code"] = {
            {"hash", code->hash}, {"files", code->files}, {"configMap", code->config_map}};
    }
    const json& conditions = member(member(job, "status"), "conditions");
    data["conditions"] = conditions.is_array() ? conditions : json::array();
    data["events"] = json::array();
    for (const auto& event : events) {
        data["events"].push_back(event_data(event));
    }
    return data;
}

}  // namespace kftrain::backend::kube
