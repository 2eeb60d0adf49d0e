#include "cli/local/queue/queue_members.h"

#include "cli/local/process/stop.h"
#include "cli/local/state/state_dir.h"

namespace kftrain::cli::local {

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

}  // namespace kftrain::cli::local
