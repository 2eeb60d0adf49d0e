#pragma once

#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "job/queue_status.h"
#include "manifest/job_spec.h"
#include "progress/progress.h"

namespace kftrain::job {

// The phase of a job, as the operator's last condition (and kubectl's State
// column) names it. The local backend uses the same names.
enum class JobPhase { Unknown, Created, Running, Restarting, Succeeded, Failed, Suspended };

// Return the phase's name as shown: "Created", "Running", ...
const char* phase_name(JobPhase phase);

// Parse a condition type into a phase; Unknown when it is none of them.
JobPhase parse_phase(const std::string& name);

// Return whether the phase is final (Succeeded or Failed).
inline bool is_finished(JobPhase phase) {
    return phase == JobPhase::Succeeded || phase == JobPhase::Failed;
}

// A program's progress and its last word on its checkpoints, as the one progress parser reads
// them (progress/): part of every job's status.
using progress::CheckpointReport;
using progress::Progress;

// One replica: a pod on the cluster, a process group locally.
// The labels that pick one replica's pod out of its job's (cluster): its type's and its
// index's, as the operator sets them ("training.kubeflow.org/replica-type" = "worker",
// "training.kubeflow.org/replica-index" = "17"); a key is empty where the pod has no such label.
struct PodLabels {
    std::string type_key;
    std::string type;
    std::string index_key;
    std::string index;
};

struct ReplicaStatus {
    std::string name;    // master-0, worker-2 (PyTorchJob), node-0 (TrainJob): the log prefix
    std::string type;    // Master or Worker (PyTorchJob); Node or an initializer step (TrainJob)
    int index = 0;       // index within its type
    std::string state;   // Pending, Running, Succeeded, Failed, Terminated, Unknown
    std::string reason;  // ImagePullBackOff, CrashLoopBackOff, Unschedulable, OOMKilled, ...
    std::string message;
    int restarts = 0;
    std::optional<int> exit_code;
    std::string pod;               // pod name (cluster) or empty
    std::string node;              // node name (cluster) or empty
    long long pid = 0;             // process id (local) or 0
    std::string container = {};    // the container whose log is the replica's (cluster): pytorch,
                                   // node, dataset-initializer; empty: pytorch
    std::string finished = {};     // when its last attempt ended (RFC 3339); empty while it runs
    std::string last_reason = {};  // how the attempt before this one ended: OOMKilled, Error
    bool memory_limited = false;   // its container has a memory limit (exit 137: likely OOM)
    // Its memory limit in bytes: its container's resources.limits.memory on a cluster, the job
    // file's locally (where nothing enforces it); none: not set, or not a quantity.
    std::optional<double> memory_limit_bytes = {};
    PodLabels labels = {};          // the labels that pick its pod out of the job's (cluster)
    std::string odd_identity = {};  // why it goes by its pod's name: an index that is no number
                                    // or repeats another pod's (cluster); empty: none
};

// What each replica of one type asks for, from the job's pod template: what prices it.
struct ReplicaRequest {
    std::string type;  // Master or Worker
    int replicas = 0;
    double cpu_cores = 0;     // 0: not requested
    double memory_bytes = 0;  // 0: not requested
    int gpus = 0;             // nvidia.com/gpu
};

// Counts per replica type, as status.replicaStatuses reports them.
struct ReplicaCounts {
    int active = 0;
    int succeeded = 0;
    int failed = 0;
};

// Everything `status` shows about a job, from either backend.
struct JobStatus {
    std::string name;
    std::string namespace_;
    std::string uid;                                 // metadata.uid (cluster); "" locally
    std::map<std::string, std::string> labels;       // metadata.labels (cluster)
    std::map<std::string, std::string> annotations;  // metadata.annotations (cluster)
    // When this status was read from the job's record in history (RFC 3339), the job being
    // gone or --from-history given; "" for a live job. The verbs say so before they answer.
    std::string recorded;
    std::string backend;              // manifest::k_backend_kubernetes or manifest::k_backend_local
    std::string kind = "PyTorchJob";  // PyTorchJob or TrainJob (manifest::kind_name)
    JobPhase phase = JobPhase::Unknown;
    std::string reason;  // of the last condition
    std::string message;
    std::string created;  // ISO-8601 UTC timestamps; empty if unknown
    std::string started;
    std::string finished;
    std::string suspended_since;                  // when it was suspended, while it is Suspended
    std::map<std::string, ReplicaCounts> counts;  // by type: Master, Worker
    std::vector<ReplicaStatus> replicas;          // master first, then workers by index
    std::string pod_selector;          // the label selector that found its pods (cluster)
    std::optional<Progress> progress;  // the Master's last progress line
    std::string progress_unread;       // why its log could not be read for progress ("": it was)
    std::optional<CheckpointReport> checkpoint;  // the lead's last checkpoint event, if any
    std::vector<std::string> diagnosis;          // why it is pending or failing, one line each
    std::string why;  // why it failed or looks stuck, one line (kftrain diagnose's); set by the
                      // verbs that show it: status, describe
    int replicas_wanted = 0;  // replicas the job asks for (Master included); 0 if unknown
    std::vector<ReplicaRequest> requests;              // by type; empty when unknown
    std::map<std::string, std::string> node_selector;  // the pods' (a GPU type may show)
    std::optional<QueueStatus> queue;  // where a job submitted with a queue stands in it
};

// Above this many replicas a read summarises (docs/scale.md): status and describe count the
// replicas and list only those not well, logs without --tail prints the last
// k_many_replicas_tail lines of each, logs -f follows the lead and those that fail or restart.
inline constexpr size_t k_many_replicas = 16;
inline constexpr int k_many_replicas_tail = 100;

// Return whether a job's replicas run on this machine (processes with pids, not pods).
bool runs_here(const JobStatus& status);

// Return whether a replica is not well: failed, restarted or restarting, pending, unknown, or
// ended without success while its job still runs (a replica that succeeded, or runs, is well).
bool replica_unwell(const ReplicaStatus& replica);

// How many replicas of one type are in each state, for the summary of a large job.
struct ReplicaTally {
    std::string type;  // Master, Worker, Node
    int total = 0;
    std::map<std::string, int> states;  // Running: 1020, Pending: 3, Failed: 1
    int restarts = 0;                   // restarts of all of them together
};

// Tally replicas by type, in the order their types first come.
std::vector<ReplicaTally> tally_replicas(const std::vector<ReplicaStatus>& replicas);

// Return the replica that failed first (the earliest finish among the failed ones), if any.
const ReplicaStatus* first_failure(const std::vector<ReplicaStatus>& replicas);

// Return whether a replica is followed among many: the lead, and any that failed or restarted.
bool followed_among_many(const ReplicaStatus& replica, const std::string& lead);

// Return whether a replica's name, type or pod matches --replica ("", worker, Worker,
// worker-3, master-0); both backends select replicas with it.
bool replica_matches(const ReplicaStatus& replica, const std::string& wanted);

// Return the message for logs --previous where no replica (of those --replica matches, when
// given) has restarted, for exit code 3; and the notice for one replica that has not.
std::string no_restart_message(const std::string& job, const std::string& wanted);
inline constexpr const char* k_no_previous_attempt = "has not restarted: no previous attempt";

// Return the message for a --replica that matches none of a job's replicas (names, in its
// order), for exit code 3: the same on the cluster and here.
std::string no_replica_message(const std::string& job, const std::string& wanted,
                               const std::vector<std::string>& names);

// Return "trainjob/name" or "pytorchjob/name": how kubectl names a job of this kind.
std::string job_ref(const std::string& kind, const std::string& name);

// Return the seconds the job has run: start (or creation) to finish, to its suspension while
// Suspended, or to now; 0 while it waits in a queue, not started.
std::optional<double> job_duration(const JobStatus& status, std::time_t now);

}  // namespace kftrain::job
