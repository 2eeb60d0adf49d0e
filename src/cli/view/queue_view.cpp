#include "cli/view/queue_view.h"

#include <fmt/format.h>

#include "cli/view/output_format.h"
#include "cli/view/text_table.h"
#include "util/json_optional.h"
#include "util/time_text.h"

namespace kftrain::cli::view {
namespace {

using nlohmann::json;
using util::optional_json;

// "position 3 of 7 in team-a, 12 in cluster-queue gpu", or "" without positions.
std::string format_position(const job::QueueStatus& q) {
    if (!q.position) {
        return "";
    }
    std::string text = fmt::format("position {}", *q.position);
    if (q.pending_in_queue) {
        text += fmt::format(" of {}", *q.pending_in_queue);
    }
    text += " in " + q.local_queue;
    if (q.position_in_cluster) {
        text += fmt::format(", {} in cluster-queue", *q.position_in_cluster);
        if (!q.cluster_queue.empty()) {
            text += " " + q.cluster_queue;
        }
    }
    return text;
}

// "Queued in team-a (position 3 of 7 ...)", with why it waits and its last eviction.
std::string format_pending(const job::QueueStatus& q) {
    std::string line = "Queued in " + q.local_queue;
    std::vector<std::string> notes;
    if (std::string position = format_position(q); !position.empty()) {
        notes.push_back(position);
    }
    if (q.workload.empty() && !q.local) {
        notes.push_back("Kueue has not made its Workload yet");
    }
    if (q.inactive) {
        notes.push_back("deactivated: Kueue admits it only once reactivated");
    }
    if (!q.evicted_reason.empty()) {
        notes.push_back(fmt::format("requeued after eviction ({})", q.evicted_reason));
    }
    if (!notes.empty()) {
        line += fmt::format(" ({})", fmt::join(notes, "; "));
    }
    if (!q.message.empty()) {
        line += ": " + q.message;
    }
    return line;
}

}  // namespace

std::string format_queue_state(const job::QueueStatus& q) {
    const std::string cluster_queue = q.cluster_queue.empty() ? q.local_queue : q.cluster_queue;
    switch (q.state) {
        case job::QueueState::Pending:
            return format_pending(q);
        case job::QueueState::QuotaReserved:
            return fmt::format("Quota reserved in {}, waiting for admission checks{}",
                               cluster_queue, q.message.empty() ? "" : ": " + q.message);
        case job::QueueState::Admitted:
            return "Admitted to " + cluster_queue;
        case job::QueueState::Evicted:
            return fmt::format("Evicted from {}{}{}", cluster_queue,
                               q.reason.empty() ? "" : " (" + q.reason + ")",
                               q.message.empty() ? "" : ": " + q.message);
        case job::QueueState::Finished:
            return "Finished in " + cluster_queue;
    }
    return "";
}

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

json queue_to_json(const job::QueueStatus& q) {
    return {{"state", job::queue_state_name(q.state)},
            {"localQueue", q.local_queue},
            {"clusterQueue", q.cluster_queue},
            {"priorityClass", q.priority_class},
            {"priority", optional_json(q.priority)},
            {"workload", q.workload},
            {"reason", q.reason},
            {"message", q.message},
            {"since", q.since},
            {"queuedSince", q.queued_since},
            {"active", !q.inactive},
            {"requeues", q.requeues},
            {"requeueAt", q.requeue_at},
            {"evictedReason", q.evicted_reason},
            {"evictedMessage", q.evicted_message},
            {"position", optional_json(q.position)},
            {"pendingInQueue", optional_json(q.pending_in_queue)},
            {"positionInClusterQueue", optional_json(q.position_in_cluster)},
            {"summary", format_queue_state(q)}};
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
    TextTable table({"POSITION", "NAME", "KIND", "STATE", "WAITING"});
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
                             {"message", q.message}});
        }
        print_json_items(out, items, format);
        return;
    }
    TextTable table({"NAME", "CLUSTERQUEUE", "PENDING", "RESERVING", "ADMITTED", "ACTIVE"});
    for (const auto& q : queues) {
        std::string active = q.active ? "True" : "False";
        if (!q.active && !q.reason.empty()) {
            active += " (" + q.reason + ")";
        }
        table.add_row({q.name, q.cluster_queue.empty() ? "-" : q.cluster_queue,
                       std::to_string(q.pending), std::to_string(q.reserving),
                       std::to_string(q.admitted), active});
    }
    table.print(out);
}

}  // namespace kftrain::cli::view
