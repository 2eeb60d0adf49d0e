#pragma once

// What goes with a job on a cluster: objects kftrain creates beside it (the code's ConfigMap,
// the TrainingRuntime of a TrainJob's retry budget) name the job as their owner, so that the
// garbage collector removes them with it.

#include <nlohmann/json.hpp>
#include <string>

#include "backend/kube/queries.h"
#include "job/rendered_job.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// An owner: a job, or a search's Experiment whose trials mount the code.
struct Owner {
    std::string resource;     // as kubectl get names it: "pytorchjobs.kubeflow.org"
    std::string api_version;  // "kubeflow.org/v1"
    std::string kind;         // "PyTorchJob"
    std::string name;
};

// Return the owner record of a job.
Owner job_owner(const job::RenderedJob& job);

// Add owner to the owners of the namespace's object resource/name, beside owners_now (its
// metadata.ownerReferences as read; null or [] for none): an object two jobs share goes with
// the last of them.
util::Status add_owner(KubeQueries& queries, const std::string& resource, const std::string& name,
                       const nlohmann::json& owners_now, const Owner& owner);

}  // namespace kftrain::backend::kube
