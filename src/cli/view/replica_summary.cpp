#include "cli/view/replica_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/view/field_text.h"
#include "util/text.h"
#include "util/text_table.h"

namespace kftrain::cli::view {
namespace {

constexpr size_t k_unwell_rows = 20;

// The states as columns: the usual ones in the order a job goes through them, then any other.
std::vector<std::string> state_columns(const std::vector<job::ReplicaTally>& tallies) {
    std::vector<std::string> columns;
    for (const char* usual : {"Pending", "Running", "Restarting", "Succeeded", "Failed"}) {
        for (const auto& tally : tallies) {
            if (tally.states.count(usual) != 0) {
                columns.emplace_back(usual);
                break;
            }
        }
    }
    for (const auto& tally : tallies) {
        for (const auto& [state, count] : tally.states) {
            if (std::find(columns.begin(), columns.end(), state) == columns.end()) {
                columns.push_back(state);
            }
        }
    }
    return columns;
}

void print_tallies(std::ostream& out, const std::vector<job::ReplicaTally>& tallies) {
    const std::vector<std::string> states = state_columns(tallies);
    std::vector<std::string> headers = {"TYPE", "REPLICAS"};
    for (const auto& state : states) {
        headers.push_back(util::to_upper(state));
    }
    headers.emplace_back("RESTARTS");
    util::TextTable table(headers);
    for (const auto& tally : tallies) {
        std::vector<std::string> row = {tally.type.empty() ? "-" : tally.type,
                                        std::to_string(tally.total)};
        for (const auto& state : states) {
            auto count = tally.states.find(state);
            row.push_back(std::to_string(count == tally.states.end() ? 0 : count->second));
        }
        row.push_back(std::to_string(tally.restarts));
        table.add_row(std::move(row));
    }
    table.print(out);
}

// "exit code 137 (OOMKilled)": how its failed attempt ended (a restarting one's last attempt).
std::string exit_text(const job::ReplicaStatus& r) {
    std::string text = r.exit_code ? fmt::format("exit code {}", *r.exit_code) : r.state;
    const std::string& why =
        r.state == "Failed" || r.last_reason.empty() ? r.reason : r.last_reason;
    return why.empty() ? text : fmt::format("{} ({})", text, why);
}

}  // namespace

void print_replica_summary(std::ostream& out, const job::JobStatus& status, std::time_t now) {
    print_tallies(out, job::tally_replicas(status.replicas));
    std::vector<const job::ReplicaStatus*> unwell;
    for (const auto& replica : status.replicas) {
        if (job::replica_unwell(replica)) {
            unwell.push_back(&replica);
        }
    }
    out << "\n";
    if (unwell.empty()) {
        out << fmt::format("All {} replicas are well (--all for a row each).\n",
                           status.replicas.size());
        return;
    }
    out << fmt::format("Not well: {} of {} replicas (--all for a row each):\n", unwell.size(),
                       status.replicas.size());
    util::TextTable table({"REPLICA", "STATE", "RESTARTS", "REASON"});
    for (size_t i = 0; i < std::min(unwell.size(), k_unwell_rows); ++i) {
        const auto& r = *unwell[i];
        table.add_row({r.name, r.state, std::to_string(r.restarts), r.reason});
    }
    table.print(out);
    if (unwell.size() > k_unwell_rows) {
        out << fmt::format("... and {} more\n", unwell.size() - k_unwell_rows);
    }
    if (const job::ReplicaStatus* first = job::first_failure(status.replicas)) {
        std::string when = format_time_field(first->finished, now);
        out << "\n";
        print_field(out, "First failure",
                    fmt::format("{}: {}{}", first->name, exit_text(*first),
                                when.empty() ? "" : ", " + when));
    }
}

}  // namespace kftrain::cli::view
