#pragma once

// What doctor's reads of a cluster mean: the checks of the client, the cluster and the
// permissions, and, for a job file, of what the job needs there.

#include <vector>

#include "backend/kube/doctor/cluster_reads.h"
#include "doctor/access.h"
#include "doctor/fit.h"
#include "doctor/report.h"
#include "manifest/job_spec.h"

namespace kftrain::backend::kube {

// Return the client's checks: kubectl, the kubeconfig's context, the API server, the skew.
std::vector<doctor::Check> client_checks(const ClusterReads& reads);

// Return whether the API server answered (the server version was read).
bool server_reachable(const ClusterReads& reads);

// Return the cluster's checks: the namespace, each kind and its operator, Trainer runtimes,
// Katib, Kueue, the Prometheus Operator, the default StorageClass and the nodes; job, when
// given, makes what it needs needed.
std::vector<doctor::Check> cluster_checks(const ClusterReads& reads, const manifest::JobSpec* job);

// Return the permissions' checks from the access reviews' answer.
std::vector<doctor::Check> permission_checks(const ClusterReads& reads,
                                             const std::vector<doctor::Access>& accesses);

// Return the nodes doctor read (none when they could not be read).
std::vector<doctor::Node> read_nodes(const ClusterReads& reads);

// Return the secrets a job names: image pull secrets, secretKeyRefs, MLflow's credentials.
std::vector<std::string> job_secrets(const manifest::JobSpec& job);

// Return the job's checks: its runtime, queue, claims, secrets and whether it fits a node.
std::vector<doctor::Check> job_checks(const ClusterReads& reads, const manifest::JobSpec& job);

}  // namespace kftrain::backend::kube
