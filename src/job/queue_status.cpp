#include "job/queue_status.h"

#include <fmt/format.h>

#include "util/json_optional.h"

namespace kftrain::job {

namespace {

// "position 3 of 7 in team-a, 12 in cluster-queue gpu", or "" without positions.
std::string format_position(const QueueStatus& q) {
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
std::string format_pending(const QueueStatus& q) {
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

std::string format_queue_state(const QueueStatus& q) {
    const std::string cluster_queue = q.cluster_queue.empty() ? q.local_queue : q.cluster_queue;
    switch (q.state) {
        case QueueState::Pending:
            return format_pending(q);
        case QueueState::QuotaReserved:
            return fmt::format("Quota reserved in {}, waiting for admission checks{}",
                               cluster_queue, q.message.empty() ? "" : ": " + q.message);
        case QueueState::Admitted:
            return "Admitted to " + cluster_queue;
        case QueueState::Evicted:
            return fmt::format("Evicted from {}{}{}", cluster_queue,
                               q.reason.empty() ? "" : " (" + q.reason + ")",
                               q.message.empty() ? "" : ": " + q.message);
        case QueueState::Finished:
            return "Finished in " + cluster_queue;
    }
    return "";
}

nlohmann::json queue_to_json(const QueueStatus& q) {
    return {{"state", queue_state_name(q.state)},
            {"localQueue", q.local_queue},
            {"clusterQueue", q.cluster_queue},
            {"priorityClass", q.priority_class},
            {"priority", util::optional_json(q.priority)},
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
            {"position", util::optional_json(q.position)},
            {"pendingInQueue", util::optional_json(q.pending_in_queue)},
            {"positionInClusterQueue", util::optional_json(q.position_in_cluster)},
            {"summary", format_queue_state(q)}};
}

const char* queue_state_name(QueueState state) {
    switch (state) {
        case QueueState::Pending:
            return "Pending";
        case QueueState::QuotaReserved:
            return "QuotaReserved";
        case QueueState::Admitted:
            return "Admitted";
        case QueueState::Evicted:
            return "Evicted";
        case QueueState::Finished:
            return "Finished";
    }
    return "Pending";
}

}  // namespace kftrain::job
