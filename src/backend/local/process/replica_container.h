#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::backend::local {

// What the rendered job says one replica type's training container runs: the part of
// the manifest the local backend carries out as the cluster would.
struct ReplicaContainer {
    std::vector<std::string> argv;           // the container's command, then its args
    std::map<std::string, std::string> env;  // variables with a plain value, $(NAME) expanded
    std::vector<std::string> env_not_set;    // variables with valueFrom (Secrets, fields, ...)
    std::string image;
    bool has_resources = false;                               // requests or limits
    std::vector<std::pair<std::string, std::string>> mounts;  // volumeMounts: name, mountPath
};

// Read the training container (the one named pytorch, as the operator requires) of each
// replica type of a rendered PyTorchJob, keyed by type (Master, Worker); of a TrainJob, its
// spec.trainer with the volumeMounts its runtimePatches give the node container, keyed
// Node. Errors name the path in the manifest: "spec.pytorchReplicaSpecs.Worker.template.spec.
// containers: no container named pytorch".
util::Result<std::map<std::string, ReplicaContainer>> read_replica_containers(
    const YAML::Node& manifest);

// Return what the user set that the manifest carries and that does not apply on this machine,
// one phrase each, in the order of the replica types: "image kftrain/trainer:0.1.0" (only an
// image the job file or --image gave, not the default), "resources", "volume data (no
// localPath)". A volume applies when the job file gives it a localPath; the code volume
// kftrain adds (the local code copy) always does.
std::vector<std::string> ignored_settings(const std::map<std::string, ReplicaContainer>& containers,
                                          const manifest::JobSpec& spec);

}  // namespace kftrain::backend::local
