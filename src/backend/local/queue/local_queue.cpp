#include "backend/local/queue/local_queue.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace kftrain::backend::local {
namespace {

bool ahead_of(const QueueMember& a, const QueueMember& b) {
    return std::tie(a.order, a.name) < std::tie(b.order, b.name);
}

// The jobs of one queue that wait, in queue order.
std::vector<const QueueMember*> waiting_in(const std::vector<QueueMember>& members,
                                           const std::string& queue) {
    std::vector<const QueueMember*> waiting;
    for (const auto& member : members) {
        if (member.queue == queue && member.in_line && !member.admitted) {
            waiting.push_back(&member);
        }
    }
    std::sort(waiting.begin(), waiting.end(),
              [](const QueueMember* a, const QueueMember* b) { return ahead_of(*a, *b); });
    return waiting;
}

std::optional<int> position_of(const std::vector<const QueueMember*>& waiting,
                               const std::string& name) {
    for (size_t i = 0; i < waiting.size(); ++i) {
        if (waiting[i]->name == name) {
            return static_cast<int>(i) + 1;
        }
    }
    return std::nullopt;
}

}  // namespace

QueueMember queue_member(const JobState& state, bool alive) {
    QueueMember member;
    member.name = state.name;
    member.kind = state.kind;
    member.queue = state.queue;
    member.queued = state.queued;
    member.order = state.queue_order;
    member.admitted = !state.admitted.empty();
    member.finished = state.phase == "Succeeded" || state.phase == "Failed";
    member.in_line = alive && !member.finished && state.phase != "Suspended";
    return member;
}

bool turn_has_come(const std::vector<QueueMember>& members, const std::string& name) {
    auto self = std::find_if(members.begin(), members.end(),
                             [&](const QueueMember& m) { return m.name == name; });
    if (self == members.end() || self->queue.empty()) {
        return true;
    }
    for (const auto& other : members) {
        if (other.name == name || other.queue != self->queue || !other.in_line) {
            continue;
        }
        if (other.admitted || ahead_of(other, *self)) {
            return false;
        }
    }
    return true;
}

job::QueueStatus local_queue_status(const JobState& state,
                                    const std::vector<QueueMember>& members) {
    job::QueueStatus status;
    status.local = true;
    status.local_queue = state.queue;
    status.priority_class = state.priority_class;
    status.queued_since = state.queued;
    if (state.phase == "Succeeded" || state.phase == "Failed") {
        status.state = job::QueueState::Finished;
        return status;
    }
    if (state.phase == "Suspended") {
        status.queued_since.clear();
        status.message = "suspended: out of the queue until resumed, then at its back";
        return status;
    }
    if (!state.admitted.empty()) {
        status.state = job::QueueState::Admitted;
        status.since = state.admitted;
        return status;
    }
    auto waiting = waiting_in(members, state.queue);
    status.position = position_of(waiting, state.name);
    if (status.position) {
        status.pending_in_queue = static_cast<int>(waiting.size());
    }
    auto running = std::find_if(members.begin(), members.end(), [&](const QueueMember& m) {
        return m.queue == state.queue && m.in_line && m.admitted;
    });
    if (running != members.end()) {
        status.message = "waiting for job " + running->name + " to end";
    } else if (status.position && *status.position > 1) {
        status.message = "waiting for job " + waiting.front()->name + " to start";
    }
    return status;
}

std::vector<job::QueueEntry> local_queue_entries(const std::vector<QueueMember>& members,
                                                 const std::string& queue) {
    auto entry = [](const QueueMember& m, job::QueueState state) {
        job::QueueEntry e;
        e.job = m.name;
        e.kind = m.kind;
        e.state = state;
        e.queued_since = m.queued;
        return e;
    };
    std::vector<job::QueueEntry> entries;
    for (const auto& m : members) {
        if (m.queue == queue && m.in_line && m.admitted) {
            entries.push_back(entry(m, job::QueueState::Admitted));
        }
    }
    auto waiting = waiting_in(members, queue);
    for (size_t i = 0; i < waiting.size(); ++i) {
        entries.push_back(entry(*waiting[i], job::QueueState::Pending));
        entries.back().position = static_cast<int>(i) + 1;
    }
    std::vector<const QueueMember*> ended;
    for (const auto& m : members) {
        if (m.queue == queue && m.finished) {
            ended.push_back(&m);
        }
    }
    std::sort(ended.begin(), ended.end(),
              [](const QueueMember* a, const QueueMember* b) { return ahead_of(*a, *b); });
    for (const QueueMember* m : ended) {
        entries.push_back(entry(*m, job::QueueState::Finished));
    }
    return entries;
}

std::vector<job::LocalQueueInfo> local_queues(const std::vector<QueueMember>& members) {
    std::map<std::string, job::LocalQueueInfo> queues;
    for (const auto& m : members) {
        if (m.queue.empty()) {
            continue;
        }
        job::LocalQueueInfo& info = queues[m.queue];
        info.name = m.queue;
        info.namespace_ = "default";
        if (m.in_line) {
            (m.admitted ? info.admitted : info.pending) += 1;
        }
    }
    std::vector<job::LocalQueueInfo> out;
    for (auto& [name, info] : queues) {
        out.push_back(std::move(info));
    }
    return out;
}

}  // namespace kftrain::backend::local
