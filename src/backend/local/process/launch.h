#pragma once

#include <map>
#include <string>
#include <vector>

#include "backend/local/state/job_state.h"
#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::backend::local {

// How one replica is started, unmasked. state.json keeps a masked copy for status and
// describe; this goes from submit to the supervisor in launch.json (mode 0600), which the
// supervisor removes once read.
struct ReplicaLaunch {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;
};

// Read the variables --env-from-shell names from this process's environment: exit 2 for one
// that is not set, or that the job's operator sets itself (manifest::reserved_env) or the
// status server's, as the job's env refuses them.
util::Result<std::map<std::string, std::string>> shell_values(
    const manifest::JobSpec& spec, const std::vector<std::string>& names);

// Return the replicas' launch from a planned job, with from_shell (variables the user
// passes from the shell: --env-from-shell) set in every replica's env, and mask the state's
// copy: credentials in URIs become *** (util/redact.h), values from the shell ***.
std::vector<ReplicaLaunch> split_launch(JobState& state,
                                        const std::map<std::string, std::string>& from_shell);

// Return the text of launch.json.
std::string launch_json(const std::vector<ReplicaLaunch>& launch);

// Read a job's launch.json and remove it; an empty list when there is none (the state's
// argv and env are then used as they are).
util::Result<std::vector<ReplicaLaunch>> take_launch(const std::string& job);

}  // namespace kftrain::backend::local
