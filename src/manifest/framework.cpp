#include "manifest/framework.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "manifest/render/operator_env.h"
#include "util/text.h"

namespace kftrain::manifest {
namespace {

std::vector<std::string> names_of(const char* const* begin, const char* const* end) {
    return std::vector<std::string>(begin, end);
}

}  // namespace

std::optional<Framework> runtime_framework(const std::string& runtime) {
    if (runtime == "torch-distributed" || runtime == "torch-distributed-with-cache" ||
        runtime.rfind("torchtune-", 0) == 0) {
        return Framework::torch;
    }
    if (runtime == "xgboost-distributed") {
        return Framework::xgboost;
    }
    if (runtime == "jax-distributed") {
        return Framework::jax;
    }
    if (runtime == "deepspeed-distributed" || runtime == "mlx-distributed") {
        return Framework::mpi;
    }
    return std::nullopt;
}

Framework job_framework(const JobSpec& spec) {
    switch (spec.kind) {
        case JobKind::XGBoostJob:
            return Framework::xgboost;
        case JobKind::JAXJob:
            return Framework::jax;
        case JobKind::TFJob:
            return Framework::tensorflow;
        case JobKind::TrainJob:
            return runtime_framework(spec.runtime).value_or(Framework::torch);
        case JobKind::PyTorchJob:
            break;
    }
    return Framework::torch;
}

std::vector<std::pair<std::string, int>> replica_types(const JobSpec& spec) {
    std::vector<std::pair<std::string, int>> types;
    auto add = [&types](const char* type, int count) {
        if (count > 0) {
            types.emplace_back(type, count);
        }
    };
    if (spec.kind == JobKind::TFJob && spec.roles) {
        add("Chief", spec.roles->chief);
        add("Worker", spec.roles->worker);
        add("PS", spec.roles->ps);
        add("Evaluator", spec.roles->evaluator);
        return types;
    }
    const OperatorKind& v1 = operator_kind(spec.kind);
    int workers = std::max(spec.replicas, 1);
    if (v1.master_type != nullptr && spec.kind != JobKind::TFJob) {
        add(v1.master_type, 1);
        workers -= 1;
    }
    add(v1.worker_type, workers);
    return types;
}

std::string tf_config(const JobSpec& spec, const std::string& type, int index,
                      const std::function<std::string(const std::string&, int)>& address) {
    const auto types = replica_types(spec);
    int total = 0;
    for (const auto& [name, count] : types) {
        total += count;
    }
    if (total == 1) {
        return "";  // tensorflow/util.go isDistributed
    }
    // Go marshals the cluster map with its keys sorted, then the struct's fields in order.
    std::map<std::string, std::vector<std::string>> cluster;
    for (const auto& [name, count] : types) {
        auto& addresses = cluster[util::to_lower(name)];
        for (int i = 0; i < count; ++i) {
            addresses.push_back(address(name, i));
        }
    }
    nlohmann::ordered_json config;
    config["cluster"] = cluster;
    config["task"] = {{"type", util::to_lower(type)}, {"index", index}};
    config["environment"] = "cloud";
    return config.dump();
}

const char* framework_name(Framework framework) {
    switch (framework) {
        case Framework::xgboost:
            return "XGBoost";
        case Framework::jax:
            return "JAX";
        case Framework::mpi:
            return "MPI";
        case Framework::tensorflow:
            return "TensorFlow";
        case Framework::torch:
            break;
    }
    return "PyTorch";
}

std::optional<Framework> parse_framework(const std::string& name) {
    for (Framework framework : {Framework::torch, Framework::xgboost, Framework::jax,
                                Framework::tensorflow, Framework::mpi}) {
        if (name == framework_name(framework)) {
            return framework;
        }
    }
    return std::nullopt;
}

ReservedEnv reserved_env(const JobSpec& spec) {
    const char* const upserted =
        "the runtime sets it on every node, replacing the job's value: remove it";
    switch (spec.kind) {
        case JobKind::PyTorchJob:
            return {names_of(std::begin(k_pytorchjob_operator_env),
                             std::end(k_pytorchjob_operator_env)),
                    "is set by the Training Operator in every replica, after the job's env, so "
                    "this value would never reach the program: remove it"};
        case JobKind::XGBoostJob:
            return {names_of(std::begin(k_xgboostjob_operator_env),
                             std::end(k_xgboostjob_operator_env)),
                    "is set by the Training Operator in every XGBoostJob replica, after the "
                    "job's env, so this value would never reach the program: remove it"};
        case JobKind::JAXJob:
            return {names_of(std::begin(k_jaxjob_operator_env), std::end(k_jaxjob_operator_env)),
                    "is set by the Training Operator in every JAXJob replica, after the job's "
                    "env, so this value would never reach the program: remove it"};
        case JobKind::TFJob:
            return {{"TF_CONFIG"},
                    "is set by the Training Operator in every replica of a TFJob of more than "
                    "one replica, after the job's env, so this value would never reach the "
                    "program: remove it"};
        case JobKind::TrainJob:
            break;
    }
    switch (job_framework(spec)) {
        case Framework::xgboost:
            return {names_of(std::begin(k_xgboost_runtime_env), std::end(k_xgboost_runtime_env)),
                    fmt::format("is reserved by the XGBoost runtime ({}), which refuses a job "
                                "that sets it: remove it",
                                spec.runtime)};
        case Framework::jax:
            return {names_of(std::begin(k_jax_runtime_env), std::end(k_jax_runtime_env)),
                    fmt::format("is set by the JAX runtime ({}): {}", spec.runtime, upserted)};
        case Framework::mpi:
            return {names_of(std::begin(k_mpi_runtime_env), std::end(k_mpi_runtime_env)),
                    fmt::format("is reserved by the MPI runtime ({}), which refuses a job that "
                                "sets it: remove it",
                                spec.runtime)};
        case Framework::torch:
        case Framework::tensorflow:
            break;
    }
    return {names_of(std::begin(k_trainjob_operator_env), std::end(k_trainjob_operator_env)),
            "is reserved in a TrainJob: Trainer sets PET_NNODES, PET_NPROC_PER_NODE, "
            "PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT on every node itself and "
            "refuses a job that sets one: remove it"};
}

}  // namespace kftrain::manifest
