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

// Return the replicas `logs JOB --replica` takes, chosen and bounded as job_names: each
// replica type of the job (master, worker, node) with its count, then each replica
// (master-0, worker-2, node-1) with its state.
std::vector<Candidate> replica_names(const GlobalOptions& global, const std::string& job,
                                     std::chrono::milliseconds deadline);

// Return the replicas `tune logs SEARCH --trial TRIAL --replica` takes: replica_names of
// the trial's job, both lookups within one deadline.
std::vector<Candidate> trial_replica_names(const GlobalOptions& global, const std::string& search,
                                           const std::string& trial,
                                           std::chrono::milliseconds deadline);

// Return the trials `tune logs SEARCH --trial` takes, chosen and bounded as job_names: each
// trial's number, described by its name and state, then each trial's name.
std::vector<Candidate> trial_names(const GlobalOptions& global, const std::string& search,
                                   std::chrono::milliseconds deadline);

// Return the claims `data put/get/ls --claim` takes, bounded as job_names: on this machine
// the claims the job file (job_file, "" when none typed) mounts, else the namespace's
// PersistentVolumeClaims.
std::vector<Candidate> claim_names(const GlobalOptions& global, const std::string& job_file,
                                   std::chrono::milliseconds deadline);

// Return the GPU types of the price catalog --gpu is checked against: the file prices names,
// else KFTRAIN_PRICES, else the built-in one; none when it cannot be read.
std::vector<Candidate> gpu_types(const std::string& prices);

}  // namespace kftrain::cli::completion
