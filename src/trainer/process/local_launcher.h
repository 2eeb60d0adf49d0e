#pragma once

#include <map>
#include <string>
#include <vector>

#include "trainer/startup/env.h"

namespace kftrain::trainer::process {

// Return the environment of local process local_rank, as torchrun gives it.
std::map<std::string, std::string> local_process_env(const DistEnv& env, int local_rank);

// Start env.spawn_local copies of this program with args, forward SIGTERM/SIGINT to them,
// stop the others when one fails, and return the exit code (the first failure's, else 0).
int run_local_processes(const DistEnv& env, const std::vector<std::string>& args);

}  // namespace kftrain::trainer::process
