#pragma once

#include <optional>
#include <string>

namespace kftrain::backend::local {

// Split this process in two before it supervises a job: the child returns nullopt and goes on
// to supervise; the parent stays behind as the supervisor's keeper and returns the
// supervisor's exit code once nothing is left to reap. The keeper is a subreaper: when the
// supervisor is killed, its replicas become the keeper's children, and each one's exit code is
// recorded in the job's exits.json (replica_exits.h) as it ends, before it is reaped (so no
// one sees it gone before its code is kept). Where fork fails, this process supervises alone.
std::optional<int> keep_supervisor(const std::string& job);

}  // namespace kftrain::backend::local
