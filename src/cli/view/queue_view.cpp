#include "cli/view/queue_view.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cli/view/output_format.h"
#include "util/json_optional.h"
#include "util/text_table.h"
#include "util/time_text.h"

namespace kftrain::cli::view {
namespace {

using nlohmann::json;
using util::optional_json;

// Whether the quota spans more than one flavor: then each resource names its flavor.
bool many_flavors(const std::vector<job::QueueQuota>& quota) {
    return std::any_of(quota.begin(), quota.end(),
                       [&](const job::QueueQuota& q) { return q.flavor != quota[0].flavor; });
}

// "cpu=9+4,memory=36Gi" (nominal, + borrowing limit) or "cpu=3,memory=12Gi" (used); a resource
// of a ClusterQueue of several flavors reads "nvidia.com/gpu[a100]=8". "-" when unread.
std::string quota_cell(const std::optional<std::vector<job::QueueQuota>>& quota, bool usage) {
    if (!quota || quota->empty()) {
        return "-";
    }
    const bool flavors = many_flavors(*quota);
    std::vector<std::string> parts;
    for (const auto& q : *quota) {
        std::string name = flavors ? fmt::format("{}[{}]", q.resource, q.flavor) : q.resource;
        std::string amount = usage ? q.used : q.nominal;
        if (!usage && !q.borrowing_limit.empty()) {
            amount += "+" + q.borrowing_limit;
        }
        parts.push_back(name + "=" + amount);
    }
    return fmt::format("{}", fmt::join(parts, ","));
}

json quota_json(const std::optional<std::vector<job::QueueQuota>>& quota) {
    if (!quota) {
        return nullptr;
    }
    json items = json::array();
    for (const auto& q : *quota) {
        items.push_back({{"flavor", q.flavor},
                         {"resource", q.resource},
                         {"nominalQuota", q.nominal},
                         {"borrowingLimit",
                          q.borrowing_limit.empty() ? json(nullptr) : json(q.borrowing_limit)},
                         {"used", q.used}});
    }
    return items;
}

}  // namespace

bool shows_queue(const job::JobStatus& status) {
    if (!status.queue || job::is_finished(status.phase)) {
        return false;
    }
    if (status.queue->local && status.phase == job::JobPhase::Suspended) {
        return false;  // out of the local queue until resumed: the phase says it
    }
    switch (status.queue->state) {
        case job::QueueState::Pending:
        case job::QueueState::QuotaReserved:
        case job::QueueState::Evicted:
            return true;
        case job::QueueState::Admitted:
            return status.phase == job::JobPhase::Unknown ||
                   status.phase == job::JobPhase::Created ||
                   status.phase == job::JobPhase::Suspended;
        case job::QueueState::Finished:
            return false;
    }
    return false;
}

std::string format_queue_field(const job::QueueStatus& q, std::time_t now) {
    std::string line = q.local_queue;
    if (!q.cluster_queue.empty()) {
        line += " -> cluster-queue " + q.cluster_queue;
    }
    if (!q.priority_class.empty()) {
        line += ", priority " + q.priority_class;
    }
    if (!q.workload.empty()) {
        line += ", workload " + q.workload;
    }
    auto since = util::parse_timestamp(q.queued_since);
    const bool waiting = q.state == job::QueueState::Pending;
    if (waiting && since) {
        line += ", waiting " + util::format_duration(std::difftime(now, *since));
    }
    if (q.requeues > 0) {
        line += fmt::format(", requeued {} time{}", q.requeues, q.requeues == 1 ? "" : "s");
    }
    return line;
}

void print_queue_entries(std::ostream& out, const std::vector<job::QueueEntry>& entries,
                         OutputFormat format, std::time_t now) {
    auto waited = [now](const job::QueueEntry& e) -> std::optional<double> {
        auto since = util::parse_timestamp(e.queued_since);
        if (!since || e.state != job::QueueState::Pending) {
            return std::nullopt;
        }
        return std::difftime(now, *since);
    };
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        json items = json::array();
        for (const auto& e : entries) {
            items.push_back({{"name", e.job},
                             {"kind", e.kind},
                             {"workload", e.workload},
                             {"state", job::queue_state_name(e.state)},
                             {"position", optional_json(e.position)},
                             {"queuedSince", e.queued_since},
                             {"waitingSeconds", optional_json(waited(e))}});
        }
        print_json_items(out, items, format);
        return;
    }
    util::TextTable table({"POSITION", "NAME", "KIND", "STATE", "WAITING"});
    for (const auto& e : entries) {
        auto wait = waited(e);
        table.add_row({e.position ? std::to_string(*e.position) : "-", e.job, e.kind,
                       job::queue_state_name(e.state), wait ? util::format_duration(*wait) : "-"});
    }
    table.print(out);
}

void print_local_queues(std::ostream& out, const std::vector<job::LocalQueueInfo>& queues,
                        OutputFormat format) {
    if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
        json items = json::array();
        for (const auto& q : queues) {
            items.push_back({{"name", q.name},
                             {"namespace", q.namespace_},
                             {"clusterQueue", q.cluster_queue},
                             {"pending", q.pending},
                             {"reserving", q.reserving},
                             {"admitted", q.admitted},
                             {"active", q.active},
                             {"reason", q.reason},
                             {"message", q.message},
                             {"quota", quota_json(q.quota)}});
        }
        print_json_items(out, items, format);
        return;
    }
    util::TextTable table(
        {"NAME", "CLUSTERQUEUE", "PENDING", "RESERVING", "ADMITTED", "ACTIVE", "QUOTA", "USAGE"});
    for (const auto& q : queues) {
        std::string active = q.active ? "True" : "False";
        if (!q.active && !q.reason.empty()) {
            active += " (" + q.reason + ")";
        }
        table.add_row({q.name, q.cluster_queue.empty() ? "-" : q.cluster_queue,
                       std::to_string(q.pending), std::to_string(q.reserving),
                       std::to_string(q.admitted), active, quota_cell(q.quota, false),
                       quota_cell(q.quota, true)});
    }
    table.print(out);
}

}  // namespace kftrain::cli::view
