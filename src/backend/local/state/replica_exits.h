#pragma once

#include <map>
#include <string>

#include "util/result.h"

namespace kftrain::backend::local {

// The exit codes of replicas that ended after their supervisor was gone (a shell's code:
// 128+N for a death by signal N), by replica name. The supervisor's keeper (keeper.h) reaps
// them and writes them in exits.json, so status can tell replicas that completed unsupervised
// from ones that failed.
using ReplicaExits = std::map<std::string, int>;

// Add one replica's exit code to a job's exits.json.
util::Status record_replica_exit(const std::string& job, const std::string& replica, int code);

// Read a job's exits.json; empty when it is missing or unreadable.
ReplicaExits read_replica_exits(const std::string& job);

}  // namespace kftrain::backend::local
