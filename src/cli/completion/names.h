#pragma once

#include <chrono>
#include <vector>

#include "cli/completion/candidates.h"
#include "cli/context.h"

namespace kftrain::cli::completion {

// Return the jobs `kftrain list` would list with these global flags (--local, -n, --context,
// --kubeconfig as typed), each with its kind and phase as description. Nothing runs past
// deadline, and any error (no cluster, kubectl failing or hanging) gives no candidates and
// prints nothing: completion must never hang or spam the shell.
std::vector<Candidate> job_names(const GlobalOptions& global, std::chrono::milliseconds deadline);

// Return the searches `kftrain tune status` can show, chosen and bounded as job_names: the
// local searches, or the Katib Experiments of the namespace.
std::vector<Candidate> search_names(const GlobalOptions& global,
                                    std::chrono::milliseconds deadline);

// Return the queues `submit --queue` and `list --queue` take, chosen and bounded as
// job_names: the Kueue LocalQueues of the namespace, or this machine's queues.
std::vector<Candidate> queue_names(const GlobalOptions& global, std::chrono::milliseconds deadline);

// Return the GPU types of the price catalog --gpu is checked against: the file prices names,
// else KFTRAIN_PRICES, else the built-in one; none when it cannot be read.
std::vector<Candidate> gpu_types(const std::string& prices);

}  // namespace kftrain::cli::completion
