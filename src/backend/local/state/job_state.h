#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::backend::local {

// One replica of a local job: how it is started and what happened to it.
struct ReplicaState {
    std::string name;  // master-0, worker-1; node-0: the log prefix
    std::string type;  // Master or Worker; Node (TrainJob)
    int index = 0;     // index within its type
    int rank = 0;      // RANK: 0 for the Master, index + 1 for Workers; a node's PET_NODE_RANK
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;  // what the operator would inject, on top of ours
    std::string state = "Pending";  // Pending, Running, Restarting, Succeeded, Failed, Terminated
    std::string reason;
    long long pid = 0;
    unsigned long long start_ticks = 0;  // the process's start time, against pid reuse
    int restarts = 0;
    std::optional<int> exit_code;  // shell convention: 128 + signal when a signal ended it
    std::string started;
    std::string finished;
    // The attempt before the last restart, for `logs --previous`; empty before a restart.
    std::string previous_started;
    std::string previous_finished;
    // The port its /metrics is served at on 127.0.0.1 (trainer.metricsPort: the supervisor
    // gives each replica a free one at start), and by how many local processes, at that port
    // and the ones after it; 0: none.
    int metrics_port = 0;
    int metrics_processes = 0;
    std::string metrics_path = "/metrics";
};

// Everything the supervisor records in state.json.
struct JobState {
    int version = 1;
    std::string name;
    std::string namespace_ = "default";
    std::string kind = "PyTorchJob";  // or TrainJob, XGBoostJob, JAXJob: what the file rendered
    // The framework whose environment the replicas get (manifest::framework_name): a
    // TrainJob's follows its runtime.
    std::string framework = "PyTorch";
    std::string phase = "Created";  // a JobPhase name
    std::string reason;
    std::string message;
    std::string created;
    std::string started;
    std::string finished;
    // When kftrain suspend stopped it, while it is Suspended.
    std::string suspended;
    std::string cwd;        // where the replicas run: the directory of submit, or the code's copy
    std::string code_hash;  // the folder the job ships (code): its hash and file count
    long long code_files = 0;
    long long supervisor_pid = 0;
    unsigned long long supervisor_ticks = 0;
    int master_port = 0;
    std::string restart_policy = "OnFailure";
    std::optional<int> backoff_limit;
    // A TrainJob's budget: whole-job restarts (JobSet's failurePolicy.maxRestarts), and the
    // restarts it has made (JobSet's status.restarts).
    std::optional<int> max_restarts;
    int job_restarts = 0;
    std::optional<long long> active_deadline_seconds;
    std::vector<ReplicaState> replicas;
    // What each replica asks for in the job file (quantities as written), for its price;
    // state.json of an older kftrain has none.
    bool has_resources = true;
    std::string cpu;
    std::string memory;
    std::string cpu_limit;     // "": the same as cpu (as the job file says)
    std::string memory_limit;  // "": the same as memory
    int gpus = 0;
    std::map<std::string, std::string> node_selector;
    std::string last_progress;    // the lead replica's last trainer progress line, raw JSON
    std::string last_checkpoint;  // its last checkpoint or checkpoint_failed line, raw JSON
    std::string logs_error;       // the first write to the job's logs that failed, or ""
    std::string trainer_status;   // the last trainerStatus posted to the job's status server,
                                  // raw JSON (status_server/status_endpoint.h)
    // The local queue (submit --queue): the jobs of one queue run one at a time, in the order
    // they entered it (local_queue.h). Empty: the job starts at once.
    std::string queue;
    std::string priority_class;  // recorded for status; the local queue has no priorities
    std::string queued;          // RFC 3339: when it entered the queue (submit, or resume)
    long long queue_order = 0;   // nanoseconds since the epoch then: the queue's order
    std::string admitted;        // when its turn came; empty while it waits
};

// Return whether a replica leads the job: its rank 0 prints the program's progress: the Master
// or Chief, else the replica of index 0 ranked 0 (a TrainJob's node-0, Worker 0 of a JAXJob or
// of a TFJob without a Chief).
bool is_lead_replica(const ReplicaState& replica);

// Return whether a replica's success is the job's, by its kind's controller: a PyTorchJob's or
// XGBoostJob's Master, a TFJob's Chief (else its Worker 0). A JAXJob or TrainJob has none: it
// succeeds when every replica has.
bool decides_success(const JobState& state, const ReplicaState& replica);

// Return the job's state as the JSON document of state.json.
nlohmann::json to_json(const JobState& state);

// Read a state.json document; an error naming the field when it is malformed: "field
// 'replicas[1].pid' is not a number".
util::Result<JobState> job_state_from_json(const nlohmann::json& doc);

// Read a job's state.json: error code 3 when the job has no state directory; code 4 when
// state.json cannot be read or is malformed: "state.json of job mnist: field 'replicas[1].pid'
// is not a number; remove the job with: kftrain delete mnist --force".
util::Result<JobState> read_job_state(const std::string& name);

// Write a job's state.json atomically, mode 0600.
util::Status write_job_state(const JobState& state);

// Return the sum of every replica's restarts.
int total_restarts(const JobState& state);

}  // namespace kftrain::backend::local
