#include "backend/local/queue/queue_members.h"

#include "backend/local/process/stop.h"
#include "backend/local/state/state_dir.h"

namespace kftrain::backend::local {

std::vector<QueueMember> read_queue_members() {
    std::vector<QueueMember> members;
    for (const auto& name : job_names()) {
        auto state = read_job_state(name);
        if (state && !state->queue.empty()) {
            // A replica left running by a killed supervisor still holds the queue.
            members.push_back(queue_member(*state, job_active(*state)));
        }
    }
    return members;
}

}  // namespace kftrain::backend::local
