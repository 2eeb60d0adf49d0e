#include "backend/kube/status/describe.h"

#include <fmt/format.h>

#include <sstream>

#include "backend/kube/json_fields.h"
#include "job/status_json.h"
#include "util/text.h"
#include "util/text_table.h"
#include "util/time_text.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

void print_conditions(std::ostream& out, const json& job) {
    const json& conditions = member(member(job, "status"), "conditions");
    if (!conditions.is_array() || conditions.empty()) {
        out << "\nConditions: none\n";
        return;
    }
    out << "\nConditions:\n";
    util::TextTable table({"TYPE", "STATUS", "REASON", "LAST TRANSITION", "MESSAGE"});
    for (const auto& condition : conditions) {
        table.add_row({string_at(condition, "type"), string_at(condition, "status"),
                       string_at(condition, "reason"), string_at(condition, "lastTransitionTime"),
                       string_at(condition, "message")});
    }
    table.print(out);
}

// A TrainJob's runtime and nodes, and the child Jobs of each step as jobsStatus counts them.
void print_trainjob(std::ostream& out, const json& job) {
    const json& spec = member(job, "spec");
    const json& runtime = member(spec, "runtimeRef");
    const json& nodes = member(member(spec, "trainer"), "numNodes");
    out << "\n";
    out << fmt::format("{:<11} {}/{}\n", "Runtime:", string_at(runtime, "kind"),
                       string_at(runtime, "name"));
    out << fmt::format(
        "{:<11} {}\n", "Num nodes:",
        nodes.is_number_integer() ? std::to_string(nodes.get<int>()) : "- (the runtime's)");
    const json& jobs_status = member(member(job, "status"), "jobsStatus");
    if (!jobs_status.is_array() || jobs_status.empty()) {
        out << "\nJobs: none\n";
        return;
    }
    out << "\nJobs:\n";
    util::TextTable table({"STEP", "ACTIVE", "READY", "SUCCEEDED", "FAILED", "SUSPENDED"});
    for (const auto& jobs : jobs_status) {
        table.add_row(
            {string_at(jobs, "name"), std::to_string(int_at(jobs, "active")),
             std::to_string(int_at(jobs, "ready")), std::to_string(int_at(jobs, "succeeded")),
             std::to_string(int_at(jobs, "failed")), std::to_string(int_at(jobs, "suspended"))});
    }
    table.print(out);
}

void print_events(std::ostream& out, const std::vector<KubeEvent>& events, std::time_t now) {
    if (events.empty()) {
        out << "\nEvents: none (events expire after an hour by default)\n";
        return;
    }
    out << "\nEvents:\n";
    util::TextTable table({"TYPE", "REASON", "AGE", "OBJECT", "MESSAGE"});
    for (const auto& event : events) {
        auto at = util::parse_timestamp(event.time);
        std::string age = at ? util::format_duration(std::difftime(now, *at)) : "-";
        if (event.count > 1) {
            age += fmt::format(" (x{})", event.count);
        }
        std::string kind = event.kind.empty() ? "?" : util::to_lower(event.kind);
        table.add_row({event.type, event.reason, age, kind + "/" + event.object, event.message});
    }
    table.print(out);
}

json event_data(const KubeEvent& event) {
    return {{"type", event.type},      {"reason", event.reason}, {"time", event.time},
            {"count", event.count},    {"kind", event.kind},     {"object", event.object},
            {"message", event.message}};
}

}  // namespace

std::string format_describe(const json& job, const std::vector<KubeEvent>& events,
                            std::time_t now) {
    std::ostringstream out;
    if (string_at(job, "kind") == "TrainJob") {
        print_trainjob(out, job);
    }
    print_conditions(out, job);
    print_events(out, events, now);
    return out.str();
}

json describe_data(const job::JobStatus& status, const json& job,
                   const std::vector<KubeEvent>& events, std::time_t now) {
    json data = job::status_to_json(status, now);
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
    const json& conditions = member(member(job, "status"), "conditions");
    data["conditions"] = conditions.is_array() ? conditions : json::array();
    data["events"] = json::array();
    for (const auto& event : events) {
        data["events"].push_back(event_data(event));
    }
    return data;
}

}  // namespace kftrain::backend::kube
