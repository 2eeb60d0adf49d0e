#pragma once

// What a job asks of its namespace, as the API server's quota admission counts it: its pods
// (each container's requests and limits, after the API server's defaults and the namespace's
// LimitRange ones) and the other objects it creates. Pure: the LimitRanges come from a backend.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "manifest/job_spec.h"

namespace kftrain::doctor {

// Quantities by resource name ("cpu", "memory", "nvidia.com/gpu"), in base units.
using Amounts = std::map<std::string, double>;

// What one container asks.
struct ContainerAsk {
    Amounts requests;
    Amounts limits;
};

// Pods of a job that ask alike: how many, and their containers.
struct PodGroup {
    std::string role;  // Master, Worker, node
    int count = 0;
    std::vector<ContainerAsk> containers;
    std::vector<ContainerAsk> init_containers;
    std::string priority_class;  // the pods' priorityClassName, "" when none
};

// A job as a namespace's quotas see it.
struct JobFootprint {
    std::vector<PodGroup> pods;
    // The other objects it creates, by the resource a quota counts them as ("configmaps",
    // "services", "pytorchjobs.kubeflow.org"): count/<resource> and the plain names.
    std::map<std::string, long long> objects;
};

// What a namespace's LimitRanges fill in for a container that leaves a resource unset.
// What they hold a container to: max, the largest limit it may set.
struct ContainerDefaults {
    Amounts limits;    // LimitRange default
    Amounts requests;  // LimitRange defaultRequest (the API server fills it from default)
    Amounts max;       // LimitRange max: a container's limit above it, or none, is refused
    std::vector<std::string> names;  // the LimitRanges that hold Container limits
};

// Return the pods and objects a job creates: its replicas' containers as the renderer writes
// them, the API server's default of a request to its limit, and what the operator adds
// (the PyTorchJob Workers' init container, a Service per replica, the job's JobSet and Job).
JobFootprint job_footprint(const manifest::JobSpec& spec);

// Read the defaults of the Container limits of a LimitRange List (`get limitranges -o json`,
// or a List holding other kinds too, which are skipped); a quantity that is none is skipped and
// named in notes.
ContainerDefaults read_container_defaults(const nlohmann::json& list,
                                          std::vector<std::string>& notes);

// Read a map of quantities (a quota's hard, a LimitRange's default); one that is none is left
// out and named in notes: "<where> cpu unreadable: expected a quantity such as 4, 500m or 8Gi".
Amounts read_amounts(const nlohmann::json& object, const std::string& where,
                     std::vector<std::string>& notes);

// Return the footprint with the LimitRange's defaults applied as the LimitRanger admission
// does: an unset limit takes default, an unset request defaultRequest.
JobFootprint with_defaults(JobFootprint footprint, const ContainerDefaults& defaults);

// Return what one pod of the group asks in total, as quota counts it: requests and limits by
// resource, each the larger of its containers' sum and its largest init container.
ContainerAsk pod_ask(const PodGroup& group);

// Return what the whole job requests, summed over its pods ("cpu", "memory", "nvidia.com/gpu",
// and "pods": their number), as Kueue admits it against a ClusterQueue.
Amounts job_requests(const JobFootprint& footprint);

// Return whether the group's pods are BestEffort: no container asks for CPU or memory.
bool best_effort(const PodGroup& group);

}  // namespace kftrain::doctor
