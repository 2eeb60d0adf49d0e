#include "cli/local/process/replica_env.h"

#include <fmt/format.h>

#include <optional>

#include "manifest/nproc.h"
#include "wire/status_server_env.h"

namespace kftrain::cli::local {
namespace {

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

// Return what Trainer v2 gives a node: the PET_* variables alone (set_ports adds the port).
std::map<std::string, std::string> trainer_environment(const manifest::JobSpec& spec, int rank) {
    return {
        {"PET_NNODES", std::to_string(spec.replicas)},
        {"PET_NPROC_PER_NODE", std::to_string(manifest::trainjob_procs_per_node(spec))},
        {"PET_NODE_RANK", std::to_string(rank)},
        {"PET_MASTER_ADDR", k_local_address},
    };
}

}  // namespace

std::vector<ReplicaRef> replica_refs(const manifest::JobSpec& spec) {
    if (spec.kind == manifest::JobKind::TrainJob) {
        std::vector<ReplicaRef> nodes;
        for (int i = 0; i < spec.replicas; ++i) {
            nodes.push_back({"Node", i, i, fmt::format("node-{}", i)});
        }
        return nodes;
    }
    std::vector<ReplicaRef> refs{{"Master", 0, 0, "master-0"}};
    for (int i = 0; i < spec.worker_replicas(); ++i) {
        refs.push_back({"Worker", i, i + 1, fmt::format("worker-{}", i)});
    }
    return refs;
}

int world_size(const manifest::JobSpec& spec) {
    if (spec.kind == manifest::JobKind::TrainJob) {
        return spec.replicas * manifest::trainjob_procs_per_node(spec);
    }
    return spec.replicas * manifest::nproc_count(spec.nproc_per_node).value_or(1);
}

std::map<std::string, std::string> operator_environment(const manifest::JobSpec& spec, int rank,
                                                        const Ports& ports) {
    if (spec.kind == manifest::JobKind::TrainJob) {
        auto env = trainer_environment(spec, rank);
        set_ports(env, true, ports);
        return env;
    }
    std::map<std::string, std::string> env;
    env["PYTHONUNBUFFERED"] = "0";
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
    set_ports(env, false, ports);
    return env;
}

void set_ports(std::map<std::string, std::string>& env, bool trainjob, const Ports& ports) {
    env["PET_MASTER_PORT"] = std::to_string(ports.master);
    if (trainjob) {
        return;
    }
    env["MASTER_PORT"] = std::to_string(ports.master);
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

}  // namespace kftrain::cli::local
