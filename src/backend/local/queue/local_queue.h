#pragma once

#include <string>
#include <vector>

#include "backend/local/state/job_state.h"
#include "job/queue_entry.h"
#include "job/queue_status.h"

namespace kftrain::backend::local {

// The local queue: what `submit --queue NAME` means on this machine. The jobs of one queue
// run one at a time, in the order they entered it (submit, or resume: a resumed job goes to
// the back, as Kueue requeues a workload); a job in no queue starts at once. There is no queue
// object: a queue is the jobs that name it. Each waiting job's own supervisor waits for its
// turn, so nothing else has to run. Pure: the callers read the jobs (read_queue_members).

// One job as the queue sees it.
struct QueueMember {
    std::string name;
    std::string kind;
    std::string queue;
    std::string queued;     // RFC 3339
    long long order = 0;    // nanoseconds since the epoch: the place in the queue
    bool admitted = false;  // its turn has come (it runs, or has run)
    bool in_line = false;   // it waits or runs: it has a live process and has not ended
    bool finished = false;  // it has ended (Succeeded or Failed)
};

// Return a job as the queue sees it; alive: whether its supervisor or any of its replicas
// runs (a replica whose supervisor was killed still holds the queue).
QueueMember queue_member(const JobState& state, bool alive);

// Return whether job name may start now: no job of its queue runs, and none waits ahead of
// it. A job in no queue may always start.
bool turn_has_come(const std::vector<QueueMember>& members, const std::string& name);

// Return where a job of a queue stands: Pending with its position among the jobs that wait
// (1-based) and how many wait, Admitted once its turn came, Finished once it ended.
job::QueueStatus local_queue_status(const JobState& state, const std::vector<QueueMember>& members);

// Return the jobs of a queue as `list --queue` shows them: the running one, then the waiting
// ones in order with their positions, then those that ended.
std::vector<job::QueueEntry> local_queue_entries(const std::vector<QueueMember>& members,
                                                 const std::string& queue);

// Return every queue a job on this machine names, by name, with the jobs waiting (pending)
// and running (admitted) in it.
std::vector<job::LocalQueueInfo> local_queues(const std::vector<QueueMember>& members);

}  // namespace kftrain::backend::local
