#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kftrain::job {

// Where a queued job stands with its queue (Kueue's Workload on a cluster), most advanced
// first: Finished, Admitted, QuotaReserved (admission checks pending), Evicted, Pending.
enum class QueueState { Pending, QuotaReserved, Admitted, Evicted, Finished };

// Return the state's name as shown: "Pending", "QuotaReserved", "Admitted", ...
const char* queue_state_name(QueueState state);

// A queued job's place in its queue; set on JobStatus only for a job submitted with a queue.
struct QueueStatus {
    QueueState state = QueueState::Pending;
    std::string local_queue;     // the LocalQueue the job waits in (kueue.x-k8s.io/queue-name)
    std::string cluster_queue;   // the ClusterQueue that admitted it, else the LocalQueue's
    std::string priority_class;  // kueue.x-k8s.io/priority-class, if any
    std::optional<long long> priority;  // the Workload's priority value
    std::string workload;               // the Workload's name; empty when Kueue has made none (yet)
    std::string reason;                 // of the condition that decides the state
    std::string message;
    std::string since;           // when it entered the state (the condition's last transition)
    std::string queued_since;    // when the Workload was made: how long it has waited
    bool inactive = false;       // spec.active false: Kueue will not admit it until reactivated
    int requeues = 0;            // times it was requeued (status.requeueState.count)
    std::string requeue_at;      // when it goes back into the queue after an eviction
    std::string evicted_reason;  // the last eviction's reason (Preempted, ...), also once requeued
    std::string evicted_message;
    std::optional<int> position;             // 1-based, in the LocalQueue (visibility API)
    std::optional<int> pending_in_queue;     // pending Workloads of the LocalQueue
    std::optional<int> position_in_cluster;  // 1-based, in the ClusterQueue
    bool local =
        false;  // this machine's queue (backend/local/queue/local_queue.h): no Kueue, no Workload
};

// One resource of a flavor of a ClusterQueue: its quota and what is reserved of it now, as the
// ClusterQueue writes them ("9", "36Gi").
struct QueueQuota {
    std::string flavor;
    std::string resource;         // cpu, memory, nvidia.com/gpu
    std::string nominal;          // spec nominalQuota
    std::string borrowing_limit;  // spec borrowingLimit; "" when none is set
    std::string used;             // status flavorsReservation (else flavorsUsage); "0" if none
};

// A LocalQueue as `kftrain queues` lists it.
struct LocalQueueInfo {
    std::string name;
    std::string namespace_;
    std::string cluster_queue;
    int pending = 0;     // status.pendingWorkloads
    int reserving = 0;   // status.reservingWorkloads
    int admitted = 0;    // status.admittedWorkloads
    bool active = true;  // the Active condition (false: the ClusterQueue is missing or stopped)
    std::string reason;  // of a false Active condition
    std::string message;
    // Its ClusterQueue's quota and usage, flavor by flavor; nullopt when the ClusterQueues could
    // not be read (they are cluster-scoped: a namespace's user may not list them) or it has none.
    std::optional<std::vector<QueueQuota>> quota;
};

// Return a queued job's place as one line: "Queued in team-a (position 3 of 7 in team-a, 12
// in cluster-queue gpu)", "Admitted to gpu", "Evicted from gpu (Preempted): message".
std::string format_queue_state(const QueueStatus& queue);

// Return a queued job's place as the "queue" member of status -o json.
nlohmann::json queue_to_json(const QueueStatus& queue);

}  // namespace kftrain::job
