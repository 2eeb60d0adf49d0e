#pragma once

#include <vector>

#include "backend/local/queue/local_queue.h"

namespace kftrain::backend::local {

// Read every local job that names a queue, as the queue sees it (whether its supervisor or a
// replica runs looked up in /proc); a job whose state cannot be read is left out: it cannot be in
// line.
std::vector<QueueMember> read_queue_members();

}  // namespace kftrain::backend::local
