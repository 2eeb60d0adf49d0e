#include "manifest/render/trainjob_fields.h"

#include <fmt/format.h>

#include <functional>

namespace kftrain::manifest {
namespace {

// A job-file key a TrainJob has no place for, and why.
struct Unsupported {
    std::string path;
    std::function<bool(const JobSpec&)> set;
    std::string why;
};

const std::vector<Unsupported>& unsupported_keys() {
    static const std::vector<Unsupported> k_keys = {
        {"elasticPolicy", [](const JobSpec& s) { return s.elastic_policy.has_value(); },
         "Trainer v2 has no elastic training"},
        {"restartPolicy",
         [](const JobSpec& s) {
             return s.source.given("restartPolicy") &&
                    !(s.restart_policy == "ExitCode" && s.run_policy.backoff_limit);
         },
         "a TrainJob's pods restart as its runtime's JobSet says (failurePolicy); only "
         "ExitCode, with a retry budget (--retries), becomes JobSet rules (docs/restarts.md)"},
        {"imagePullPolicy", [](const JobSpec& s) { return s.source.given("imagePullPolicy"); },
         "a TrainJob's trainer has no imagePullPolicy and runtimePatches cannot set it; the "
         "runtime's container does"},
        {"priorityClassName", [](const JobSpec& s) { return !s.priority_class_name.empty(); },
         "runtimePatches cannot set a pod's priorityClassName in Trainer v2.3; the runtime, or "
         "Kueue's priority class, does"},
        {"runPolicy.ttlSecondsAfterFinished",
         [](const JobSpec& s) { return s.run_policy.ttl_seconds_after_finished.has_value(); },
         "a TrainJob has no TTL of its own; its runtime's JobSet sets one"},
        {"runPolicy.cleanPodPolicy",
         [](const JobSpec& s) { return !s.run_policy.clean_pod_policy.empty(); },
         "a TrainJob's pods are kept or removed by its runtime's JobSet"},
        {"runPolicy.schedulingPolicy",
         [](const JobSpec& s) {
             const SchedulingPolicy& p = s.run_policy.scheduling;
             return p.min_available || !p.queue.empty() || !p.priority_class.empty();
         },
         "Trainer v2 gang-schedules through its runtime's podGroupPolicy and queues through "
         "Kueue (the kueue.x-k8s.io/queue-name label)"},
        {"nprocPerNode",
         [](const JobSpec& s) { return s.nproc_per_node == "cpu" || s.nproc_per_node == "gpu"; },
         "a TrainJob's numProcPerNode is a number; leave nprocPerNode unset (or auto) for one "
         "process per GPU, or per CPU of resources when there is no GPU"},
    };
    return k_keys;
}

}  // namespace

std::vector<std::string> trainjob_unsupported_keys() {
    std::vector<std::string> paths;
    for (const auto& key : unsupported_keys()) {
        paths.push_back(key.path);
    }
    return paths;
}

util::Status check_trainjob_fields(const JobSpec& spec) {
    std::vector<std::string> refused;
    for (const auto& key : unsupported_keys()) {
        if (key.set(spec)) {
            refused.push_back(fmt::format("{}: has no TrainJob equivalent: {}",
                                          spec.source.locate(key.path), key.why));
        }
    }
    if (refused.empty()) {
        return util::ok_status();
    }
    if (refused.size() == 1) {
        return util::error(refused.front() + " (remove it, or keep kind PyTorchJob)");
    }
    return util::error(fmt::format(
        "{} job-file keys do not fit a TrainJob (remove them, or keep kind PyTorchJob):\n  {}",
        refused.size(), fmt::join(refused, "\n  ")));
}

}  // namespace kftrain::manifest
