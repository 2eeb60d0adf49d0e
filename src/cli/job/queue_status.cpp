#include "cli/job/queue_status.h"

namespace kftrain::cli::job {

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

}  // namespace kftrain::cli::job
