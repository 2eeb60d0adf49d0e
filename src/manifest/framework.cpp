#include "manifest/framework.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "manifest/render/operator_env.h"
#include "util/text.h"

namespace kftrain::manifest {

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

std::vector<std::string> operator_variables(JobKind kind, Framework framework) {
    auto names = [](const auto& list) {
        return std::vector<std::string>(std::begin(list), std::end(list));
    };
    switch (kind) {
        case JobKind::PyTorchJob:
            return names(k_pytorchjob_operator_env);
        case JobKind::XGBoostJob: {
            auto all = names(k_xgboostjob_operator_env);
            all.emplace_back("PYTHONUNBUFFERED");
            return all;
        }
        case JobKind::JAXJob: {
            auto all = names(k_jaxjob_operator_env);
            all.emplace_back("PYTHONUNBUFFERED");
            return all;
        }
        case JobKind::TFJob:
            return {"TF_CONFIG"};
        case JobKind::TrainJob:
            break;
    }
    switch (framework) {
        case Framework::xgboost:
            return names(k_xgboost_runtime_env);
        case Framework::jax:
            return names(k_jax_runtime_env);
        case Framework::mpi:
            return names(k_mpi_runtime_env);
        case Framework::torch:
        case Framework::tensorflow:
            break;
    }
    return names(k_trainjob_operator_env);
}

namespace {

// The variables a job's operator sets, and why the job may not set them.
struct OperatorReserved {
    std::vector<std::string> names;
    std::string why;
};

OperatorReserved operator_reserved(const JobSpec& spec) {
    const Framework framework = job_framework(spec);
    std::vector<std::string> names = operator_variables(spec.kind, framework);
    // Set only in a job of several replicas (tensorflow/util.go isDistributed) or beside
    // Workers (xgboost.go): otherwise the job's own value reaches the program.
    names.erase(std::remove_if(names.begin(), names.end(),
                               [&spec](const std::string& name) {
                                   return name == "PYTHONUNBUFFERED" ||
                                          (spec.replicas <= 1 &&
                                           (name == "TF_CONFIG" || name == "WORKER_PORT" ||
                                            name == "WORKER_ADDRS"));
                               }),
                names.end());
    const std::string after_env =
        "after the job's env, so this value would never reach the "
        "program: remove it";
    switch (spec.kind) {
        case JobKind::PyTorchJob:
            return {names, "is set by the Training Operator in every replica, " + after_env};
        case JobKind::XGBoostJob:
        case JobKind::JAXJob:
            return {names, fmt::format("is set by the Training Operator in every {} replica, {}",
                                       kind_name(spec.kind), after_env)};
        case JobKind::TFJob:
            return {names,
                    "is set by the Training Operator in every replica of a TFJob of "
                    "more than one replica, " +
                        after_env};
        case JobKind::TrainJob:
            break;
    }
    switch (framework) {
        case Framework::xgboost:
            return {names, fmt::format("is reserved by the XGBoost runtime ({}), which refuses a "
                                       "job that sets it: remove it",
                                       spec.runtime)};
        case Framework::jax:
            return {names, fmt::format("is set by the JAX runtime ({}): the runtime sets it on "
                                       "every node, replacing the job's value: remove it",
                                       spec.runtime)};
        case Framework::mpi:
            return {names, fmt::format("is reserved by the MPI runtime ({}), which refuses a job "
                                       "that sets it: remove it",
                                       spec.runtime)};
        case Framework::torch:
        case Framework::tensorflow:
            break;
    }
    return {names,
            "is reserved in a TrainJob: Trainer sets PET_NNODES, PET_NPROC_PER_NODE, "
            "PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT on every node itself and "
            "refuses a job that sets one: remove it"};
}

}  // namespace

std::vector<ReservedName> reserved_env(const JobSpec& spec) {
    const OperatorReserved by_operator = operator_reserved(spec);
    std::vector<ReservedName> reserved;
    for (const std::string& name : by_operator.names) {
        reserved.push_back({name, by_operator.why});
    }
    for (const char* name : k_status_server_env) {
        reserved.push_back({name,
                            "is reserved: Kubeflow Trainer (and kftrain --local, for either kind) "
                            "sets it to point the program at its status server: remove it"});
    }
    return reserved;
}

bool is_mpi_launcher(const std::string& program) {
    const std::string name = program.substr(program.rfind('/') + 1);
    for (const std::string launcher : {"mpirun", "mpiexec"}) {
        if (name == launcher || name.rfind(launcher + ".", 0) == 0) {
            return true;
        }
    }
    return false;
}

}  // namespace kftrain::manifest
