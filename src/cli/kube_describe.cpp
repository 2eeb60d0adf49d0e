#include "cli/kube_describe.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/json_fields.h"
#include "cli/status_view.h"
#include "cli/text_table.h"
#include "cli/time_text.h"

namespace kftrain::cli {
namespace {

using nlohmann::json;

void print_conditions(std::ostream& out, const std::string& job_json) {
    json job = json::parse(job_json, nullptr, false);
    if (job.is_discarded() || !job.is_object() || !job.contains("status") ||
        !job["status"].is_object() || !job["status"].contains("conditions") ||
        !job["status"]["conditions"].is_array()) {
        out << "\nConditions: none\n";
        return;
    }
    out << "\nConditions:\n";
    TextTable table({"TYPE", "STATUS", "REASON", "LAST TRANSITION", "MESSAGE"});
    for (const auto& condition : job["status"]["conditions"]) {
        table.add_row({string_at(condition, "type"), string_at(condition, "status"),
                       string_at(condition, "reason"), string_at(condition, "lastTransitionTime"),
                       string_at(condition, "message")});
    }
    table.print(out);
}

void print_events(std::ostream& out, const std::vector<KubeEvent>& events, std::time_t now) {
    if (events.empty()) {
        out << "\nEvents: none (events expire after an hour by default)\n";
        return;
    }
    out << "\nEvents:\n";
    TextTable table({"TYPE", "REASON", "AGE", "OBJECT", "MESSAGE"});
    for (const auto& event : events) {
        auto at = parse_timestamp(event.time);
        std::string age = at ? format_duration(std::difftime(now, *at)) : "-";
        if (event.count > 1) {
            age += fmt::format(" (x{})", event.count);
        }
        std::string kind = event.kind == "Pod" ? "pod" : event.kind.empty() ? "?" : "pytorchjob";
        table.add_row({event.type, event.reason, age, kind + "/" + event.object, event.message});
    }
    table.print(out);
}

}  // namespace

std::string format_describe(const JobStatus& status, const std::string& job_json,
                            const std::vector<KubeEvent>& events, std::time_t now) {
    std::ostringstream out;
    print_status(out, status, OutputFormat::Wide, now);
    print_conditions(out, job_json);
    print_events(out, events, now);
    return out.str();
}

}  // namespace kftrain::cli
