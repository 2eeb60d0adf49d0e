#include "cli/kube/describe.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/kube/json_fields.h"
#include "cli/view/status_view.h"
#include "cli/view/text_table.h"
#include "cli/view/time_text.h"

namespace kftrain::cli::kube {
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
    view::TextTable table({"TYPE", "STATUS", "REASON", "LAST TRANSITION", "MESSAGE"});
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
    view::TextTable table({"TYPE", "REASON", "AGE", "OBJECT", "MESSAGE"});
    for (const auto& event : events) {
        auto at = view::parse_timestamp(event.time);
        std::string age = at ? view::format_duration(std::difftime(now, *at)) : "-";
        if (event.count > 1) {
            age += fmt::format(" (x{})", event.count);
        }
        std::string kind = event.kind == "Pod" ? "pod" : event.kind.empty() ? "?" : "pytorchjob";
        table.add_row({event.type, event.reason, age, kind + "/" + event.object, event.message});
    }
    table.print(out);
}

}  // namespace

std::string format_describe(const job::JobStatus& status, const std::string& job_json,
                            const std::vector<KubeEvent>& events, std::time_t now) {
    std::ostringstream out;
    view::print_status(out, status, view::OutputFormat::Wide, now);
    print_conditions(out, job_json);
    print_events(out, events, now);
    return out.str();
}

}  // namespace kftrain::cli::kube
