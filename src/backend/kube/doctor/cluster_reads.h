#pragma once

// What `kftrain doctor` reads of a cluster: every kubectl call it makes, run side by side, each
// under the request timeout, so the whole run takes about as long as its slowest call.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backend/kube/kubectl.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// One kubectl call of doctor's and how it ended (an error: it could not be run or ended badly).
using Read = util::Result<KubectlResult>;

// What doctor read of the cluster, in namespace ns.
struct ClusterReads {
    std::string ns;
    Read client = util::error("not read");           // version --client -o json
    Read version = util::error("not read");          // version -o json: the server's too
    Read context = util::error("not read");          // config current-context
    Read server = util::error("not read");           // config view --minify: the server's URL
    Read namespace_ = util::error("not read");       // get namespace NS
    Read resources = util::error("not read");        // api-resources -o name
    Read nodes = util::error("not read");            // get nodes -o json
    Read storage_classes = util::error("not read");  // get storageclasses -o json
    Read access = util::error("not read");           // create -f - -o json: the access reviews
    Read runtimes = util::error("not read");         // get the Trainer runtimes -o json
    Read queues = util::error("not read");           // get localqueues -o json
    Read claims = util::error("not read");           // get persistentvolumeclaims -o json
    Read secrets = util::error("not read");          // get secrets NAMES -o name
    Read quotas = util::error("not read");           // get resourcequotas,limitranges -o json
    Read cluster_queues = util::error("not read");   // get clusterqueues -o json (Kueue)
};

// What doctor asks beside the cluster-wide reads: the access reviews to send, and for a job
// file the secrets it names (none: not read).
struct ReadPlan {
    std::string ns;
    nlohmann::json access_reviews;
    std::vector<std::string> secrets;
    bool job = false;  // read the claims too
};

// Read the cluster through kubectl: first what needs nothing else, side by side, then, where
// api-resources says they are served, the Trainer runtimes and Kueue's LocalQueues.
ClusterReads read_cluster(KubectlRunner& kubectl, const ReadPlan& plan);

// Return the kubectl arguments that read a namespace's ResourceQuotas and LimitRanges as one
// List (doctor -f, and submit before it applies a job: quota_gate.h).
std::vector<std::string> quota_read_args(const std::string& ns);

// Return what a read printed as JSON; nullopt when it failed or printed no JSON.
std::optional<nlohmann::json> read_json(const Read& read);

// Return what went wrong with a read, as one short line of printable text: kubectl's words, or
// why it could not be run.
std::string read_failure(const Read& read);

// Return whether RBAC refused a read.
bool read_forbidden(const Read& read);

// Return the resources api-resources listed ("pytorchjobs.kubeflow.org"), none when unread.
std::vector<std::string> served_resources(const ClusterReads& reads);

}  // namespace kftrain::backend::kube
