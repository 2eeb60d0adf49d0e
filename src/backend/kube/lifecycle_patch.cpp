#include "backend/kube/lifecycle_patch.h"

#include <fmt/format.h>

#include "backend/kube/json_fields.h"
#include "job/exit_codes.h"
#include "job/lifecycle.h"
#include "job/status.h"

namespace kftrain::backend::kube {

using nlohmann::json;

std::string suspend_patch(manifest::JobKind kind, bool suspend) {
    if (kind == manifest::JobKind::TrainJob) {
        return json{{"spec", {{"suspend", suspend}}}}.dump();
    }
    return json{{"spec", {{"runPolicy", {{"suspend", suspend}}}}}}.dump();
}

namespace {

// Tell whether a replica spec's pytorch container (the one the operator configures) runs
// kftrain-trainer, which takes WORLD_SIZE and RANK once at start, as the operator set them
// when it created the pod; torchrun instead rendezvous again when the Workers change.
bool runs_kftrain_trainer(const json& replica_spec) {
    const json& containers = member(member(member(replica_spec, "template"), "spec"), "containers");
    if (!containers.is_array()) {
        return false;
    }
    for (const auto& container : containers) {
        if (string_at(container, "name") != "pytorch") {
            continue;
        }
        const json& command = member(container, "command");
        if (!command.is_array() || command.empty() || !command.front().is_string()) {
            return false;
        }
        const std::string program = command.front().get<std::string>();
        return program.substr(program.rfind('/') + 1) == "kftrain-trainer";
    }
    return false;
}

}  // namespace

std::string workload_active_patch(bool active) {
    return json{{"spec", {{"active", active}}}}.dump();
}

util::Result<std::string> scale_patch(const json& job, int workers) {
    const std::string name = string_at(member(job, "metadata"), "name");
    const std::string kind = string_at(job, "kind");
    const std::string ref = job::job_ref(kind, name);
    if (kind == manifest::kind_name(manifest::JobKind::TrainJob)) {
        return util::error(fmt::format("cannot scale {}: scaling a {} is not supported by "
                                       "Kubeflow Trainer yet (only elastic PyTorchJobs scale)",
                                       ref, kind),
                           k_exit_bad_input);
    }
    if (kind != manifest::kind_name(manifest::JobKind::PyTorchJob)) {
        return util::error(fmt::format("cannot scale {}: only elastic PyTorchJobs scale; the "
                                       "Training Operator has no elasticPolicy for a {}",
                                       ref, kind),
                           k_exit_bad_input);
    }
    const json& spec = member(job, "spec");
    const json& elastic = member(spec, "elasticPolicy");
    if (!elastic.is_object()) {
        return util::error(fmt::format("cannot scale {}: it is not elastic (its spec has no "
                                       "elasticPolicy); set elasticPolicy.minReplicas and "
                                       "maxReplicas in the job file and submit it again",
                                       ref),
                           k_exit_bad_input);
    }
    const json& worker = member(member(spec, "pytorchReplicaSpecs"), "Worker");
    if (!worker.is_object()) {
        return util::error(fmt::format("cannot scale {}: it has no Worker replicas to scale", ref),
                           k_exit_bad_input);
    }
    if (runs_kftrain_trainer(worker)) {
        return util::error(
            fmt::format("cannot scale {}: its replicas run kftrain-trainer, whose world size is "
                        "fixed when it starts (it does no elastic rendezvous), so a Worker added "
                        "or removed now would never join or be missed; delete the job and submit "
                        "it with the replicas you want (the trainer resumes from its newest "
                        "checkpoint)",
                        ref),
            k_exit_bad_input);
    }
    job::ElasticBounds bounds;
    if (member(elastic, "minReplicas").is_number_integer()) {
        bounds.min_replicas = int_at(elastic, "minReplicas");
    }
    if (member(elastic, "maxReplicas").is_number_integer()) {
        bounds.max_replicas = int_at(elastic, "maxReplicas");
    }
    if (auto within = job::check_scale(name, workers, bounds); !within) {
        return within.error_value();
    }
    return json{{"spec", {{"pytorchReplicaSpecs", {{"Worker", {{"replicas", workers}}}}}}}}.dump();
}

}  // namespace kftrain::backend::kube
