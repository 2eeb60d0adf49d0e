#include "backend/local/process/replica_env.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "manifest/nproc.h"
#include "util/text.h"
#include "wire/status_server_env.h"

namespace kftrain::backend::local {
namespace {

using manifest::Framework;
using manifest::JobKind;

constexpr const char* k_local_address = "127.0.0.1";

void add_elastic(std::map<std::string, std::string>& env, const manifest::JobSpec& spec) {
    const manifest::ElasticPolicy& policy = *spec.elastic_policy;
    int workers = spec.worker_replicas();
    int min = policy.min_replicas.value_or(policy.max_replicas.value_or(workers));
    int max = policy.max_replicas.value_or(policy.min_replicas.value_or(workers));
    env["PET_RDZV_ENDPOINT"] = "";  // set_ports fills it
    env["PET_RDZV_BACKEND"] = policy.rdzv_backend.empty() ? "c10d" : policy.rdzv_backend;
    env["PET_NNODES"] = fmt::format("{}:{}", min, max);
    if (policy.max_restarts) {
        env["PET_MAX_RESTARTS"] = std::to_string(*policy.max_restarts);
    }
}

// What Trainer v2 gives a node, by its runtime's plugin (set_ports adds the port).
std::map<std::string, std::string> trainer_environment(const manifest::JobSpec& spec, int rank) {
    switch (manifest::job_framework(spec)) {
        case Framework::xgboost:
            // plugins/xgboost: one worker per GPU of a node, else one per node.
            return {{"DMLC_TRACKER_URI", k_local_address},
                    {"DMLC_TASK_ID", std::to_string(rank)},
                    {"DMLC_NUM_WORKER",
                     std::to_string(spec.replicas * std::max(spec.resources.gpus, 1))}};
        case Framework::jax:
            return {{"JAX_NUM_PROCESSES", std::to_string(spec.replicas)},
                    {"JAX_PROCESS_ID", std::to_string(rank)}};
        case Framework::torch:
        case Framework::tensorflow:
        case Framework::mpi:
            break;
    }
    return {
        {"PET_NNODES", std::to_string(spec.replicas)},
        {"PET_NPROC_PER_NODE", std::to_string(manifest::trainjob_procs_per_node(spec))},
        {"PET_NODE_RANK", std::to_string(rank)},
        {"PET_MASTER_ADDR", k_local_address},
    };
}

// controller/xgboost/xgboost.go SetPodEnv: WORKER_ADDRS names every Worker's Service.
std::map<std::string, std::string> xgboost_environment(const manifest::JobSpec& spec, int rank) {
    std::map<std::string, std::string> env = {{"MASTER_ADDR", k_local_address},
                                              {"WORLD_SIZE", std::to_string(spec.replicas)},
                                              {"RANK", std::to_string(rank)},
                                              {"PYTHONUNBUFFERED", "1"}};
    if (spec.replicas > 1) {
        std::vector<std::string> workers(static_cast<size_t>(spec.worker_replicas()),
                                         k_local_address);
        env["WORKER_ADDRS"] = fmt::format("{}", fmt::join(workers, ","));
        env["WORKER_PORT"] = "";  // set_ports fills it
    }
    return env;
}

// controller/jax/envvar.go: Worker 0's host is the coordinator.
std::map<std::string, std::string> jax_environment(const manifest::JobSpec& spec, int rank) {
    return {{"PYTHONUNBUFFERED", "1"},
            {"COORDINATOR_ADDRESS", k_local_address},
            {"NUM_PROCESSES", std::to_string(spec.replicas)},
            {"PROCESS_ID", std::to_string(rank)}};
}

// controller/tensorflow/tensorflow.go: TF_CONFIG names every replica's Service; set_ports
// gives each its port here.
std::map<std::string, std::string> tf_environment(const manifest::JobSpec& spec, int rank) {
    const auto refs = replica_refs(spec);
    const ReplicaRef& me = refs.at(static_cast<size_t>(rank));
    const std::string config = manifest::tf_config(
        spec, me.type, me.index,
        [](const std::string&, int) { return fmt::format("{}:0", k_local_address); });
    if (config.empty()) {
        return {};
    }
    return {{"TF_CONFIG", config}};
}

// Point every address of TF_CONFIG's cluster at 127.0.0.1 and a port of its own, in the
// order TF_CONFIG lists them, so that every replica's TF_CONFIG agrees.
void set_tf_ports(std::map<std::string, std::string>& env, int first_port) {
    auto it = env.find("TF_CONFIG");
    if (it == env.end()) {
        return;
    }
    auto config = nlohmann::ordered_json::parse(it->second, nullptr, false);
    if (!config.is_object() || !config["cluster"].is_object()) {
        return;
    }
    int port = first_port;
    for (auto& [type, addresses] : config["cluster"].items()) {
        for (auto& address : addresses) {
            address = fmt::format("{}:{}", k_local_address, port);
            port += first_port > 0 ? 1 : 0;
        }
    }
    it->second = config.dump();
}

std::map<std::string, std::string> pytorch_environment(const manifest::JobSpec& spec, int rank) {
    std::map<std::string, std::string> env;
    env["PYTHONUNBUFFERED"] = "1";  // v1.9 (pytorch/envvar.go); earlier releases set "0"
    env["MASTER_ADDR"] = k_local_address;
    env["PET_MASTER_ADDR"] = k_local_address;
    env["WORLD_SIZE"] = std::to_string(world_size(spec));
    env["RANK"] = std::to_string(rank);
    env["PET_NPROC_PER_NODE"] = spec.nproc_per_node.empty() ? "auto" : spec.nproc_per_node;
    env["PET_NODE_RANK"] = std::to_string(rank);
    if (spec.elastic_policy) {
        add_elastic(env, spec);
    } else {
        env["PET_NNODES"] = std::to_string(spec.replicas);
    }
    return env;
}

}  // namespace

std::vector<ReplicaRef> replica_refs(const manifest::JobSpec& spec) {
    std::vector<ReplicaRef> refs;
    if (spec.kind == JobKind::TrainJob) {
        for (int i = 0; i < spec.replicas; ++i) {
            refs.push_back({"Node", i, i, fmt::format("node-{}", i)});
        }
        return refs;
    }
    int rank = 0;
    for (const auto& [type, count] : manifest::replica_types(spec)) {
        for (int i = 0; i < count; ++i) {
            refs.push_back({type, i, rank++, fmt::format("{}-{}", util::to_lower(type), i)});
        }
    }
    return refs;
}

int world_size(const manifest::JobSpec& spec) {
    if (spec.kind == JobKind::TrainJob) {
        return spec.replicas * manifest::trainjob_procs_per_node(spec);
    }
    return spec.replicas * manifest::nproc_count(spec.nproc_per_node).value_or(1);
}

std::map<std::string, std::string> operator_environment(const manifest::JobSpec& spec, int rank,
                                                        const Ports& ports) {
    std::map<std::string, std::string> env;
    switch (spec.kind) {
        case JobKind::TrainJob:
            env = trainer_environment(spec, rank);
            break;
        case JobKind::XGBoostJob:
            env = xgboost_environment(spec, rank);
            break;
        case JobKind::JAXJob:
            env = jax_environment(spec, rank);
            break;
        case JobKind::TFJob:
            env = tf_environment(spec, rank);
            break;
        case JobKind::PyTorchJob:
            env = pytorch_environment(spec, rank);
            break;
    }
    set_ports(env, spec.kind, manifest::job_framework(spec), ports);
    return env;
}

void set_ports(std::map<std::string, std::string>& env, JobKind kind, Framework framework,
               const Ports& ports) {
    const std::string master = std::to_string(ports.master);
    if (kind == JobKind::TrainJob) {
        if (framework == Framework::xgboost) {
            env["DMLC_TRACKER_PORT"] = master;
        } else if (framework == Framework::jax) {
            env["JAX_COORDINATOR_ADDRESS"] = fmt::format("{}:{}", k_local_address, master);
        } else {
            env["PET_MASTER_PORT"] = master;
        }
        return;
    }
    if (kind == JobKind::JAXJob) {
        env["COORDINATOR_PORT"] = master;
        return;
    }
    if (kind == JobKind::TFJob) {
        set_tf_ports(env, ports.tasks);
        return;
    }
    env["MASTER_PORT"] = master;
    if (kind == JobKind::XGBoostJob) {
        if (auto it = env.find("WORKER_PORT"); it != env.end()) {
            it->second = std::to_string(ports.rdzv);
        }
        return;
    }
    env["PET_MASTER_PORT"] = master;
    if (auto it = env.find("PET_RDZV_ENDPOINT"); it != env.end()) {
        it->second = fmt::format("{}:{}", k_local_address, ports.rdzv);
    }
}

void set_status_server(std::map<std::string, std::string>& env, const std::string& url,
                       const std::string& ca_cert, const std::string& token_file) {
    env[wire::k_status_server_url_env] = url;
    env[wire::k_status_server_ca_env] = ca_cert;
    env[wire::k_status_server_token_env] = token_file;
}

}  // namespace kftrain::backend::local
