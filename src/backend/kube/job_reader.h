#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "job/status.h"
#include "manifest/job_kind.h"

namespace kftrain::backend::kube {

// What the kubernetes backend reads differently for each kind of job. The backend finds the
// job, its pods and events the same way for both, and the verbs and views see one JobStatus.
struct JobReader {
    manifest::JobKind kind;
    // Read the job's object into its status, without pods (pure).
    job::JobStatus (*status_from)(const nlohmann::json& job);
    // Return the label selectors of the job's pods, tried in order until one finds any.
    std::vector<std::string> (*pod_selectors)(const nlohmann::json& job);
    // Complete the status from the pods in status.replicas (pure).
    void (*settle)(job::JobStatus& status);
    // The replica whose log holds the trainer's progress lines (rank 0); worker-0 where the job
    // has no replica of that name (a TFJob without a Chief).
    const char* progress_replica;
};

// Return the reader of a kind.
const JobReader& job_reader(manifest::JobKind kind);

// Return the name of the replica whose log tells the job's progress: rank 0 (master-0, node-0;
// worker-0 of a job without a Master), or an MPI TrainJob's launcher, where mpirun prints every
// rank's output.
std::string lead_replica(const job::JobStatus& status);

}  // namespace kftrain::backend::kube
