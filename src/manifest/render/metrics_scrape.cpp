#include "manifest/render/metrics_scrape.h"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "manifest/nproc.h"
#include "manifest/render/job_label.h"
#include "manifest/yaml/emit.h"

namespace kftrain::manifest {
namespace {

// The name the Training Operator gives its port in every PyTorchJob container.

YAML::Node port_entry(const std::string& name, int number) {
    YAML::Node port(YAML::NodeType::Map);
    port["name"] = string_node(name);
    port["containerPort"] = YAML::Node(number);
    port["protocol"] = string_node("TCP");
    return port;
}

// Return the relabelings that keep a TrainJob's node container and point the target at the
// pod's IP (IPv4, or IPv6 in brackets) and port: the runtime declares no metrics port.
YAML::Node address_relabelings(int port) {
    YAML::Node rules(YAML::NodeType::Sequence);
    YAML::Node keep(YAML::NodeType::Map);
    keep["action"] = string_node("keep");
    keep["sourceLabels"].push_back(string_node("__meta_kubernetes_pod_container_name"));
    keep["regex"] = string_node("node");
    rules.push_back(keep);
    const std::pair<const char*, std::string> families[] = {
        {"([0-9.]+)", fmt::format("$1:{}", port)},
        {"(.*:.*)", fmt::format("[$1]:{}", port)},
    };
    for (const auto& [regex, replacement] : families) {
        YAML::Node address(YAML::NodeType::Map);
        address["action"] = string_node("replace");
        address["sourceLabels"].push_back(string_node("__meta_kubernetes_pod_ip"));
        address["regex"] = string_node(regex);
        address["targetLabel"] = string_node("__address__");
        address["replacement"] = string_node(replacement);
        rules.push_back(address);
    }
    return rules;
}

// Return the endpoint of one local process's metrics (local rank local_rank, at port).
YAML::Node pod_endpoint(const JobSpec& spec, int local_rank, int port) {
    const JobKind kind = spec.kind;
    YAML::Node endpoint(YAML::NodeType::Map);
    endpoint["path"] = string_node(spec.metrics_path());
    // kftrain-trainer labels its samples with the job's name: keep it, not exported_job.
    endpoint["honorLabels"] = YAML::Node(true);
    if (kind == JobKind::TrainJob) {
        endpoint["relabelings"] = address_relabelings(port);
    } else {
        endpoint["port"] = string_node(metrics_port_name(local_rank));
    }
    return endpoint;
}

}  // namespace

int metrics_processes(const JobSpec& spec) {
    return spec.runs_trainer() ? trainer_procs_per_pod(spec) : 1;
}

std::string metrics_port_name(int local_rank) {
    return local_rank == 0 ? std::string(k_metrics_port_name)
                           : fmt::format("{}-{}", k_metrics_port_name, local_rank);
}

std::map<std::string, std::string> pod_annotations(const JobSpec& spec) {
    auto annotations = spec.annotations;
    const int port = spec.metrics_port();
    if (port > 0) {
        annotations.emplace("prometheus.io/scrape", "true");
        annotations.emplace("prometheus.io/port", std::to_string(port));
        annotations.emplace("prometheus.io/path", spec.metrics_path());
    }
    return annotations;
}

YAML::Node container_ports(const JobSpec& spec) {
    YAML::Node ports(YAML::NodeType::Sequence);
    const OperatorKind& v1 = operator_kind(spec.kind);
    ports.push_back(port_entry(v1.port_name, v1.port));
    const int port = spec.metrics_port();
    for (int i = 0; port > 0 && i < metrics_processes(spec); ++i) {
        ports.push_back(port_entry(metrics_port_name(i), port + i));
    }
    return ports;
}

bool declares_metrics_port(const YAML::Node& manifest, const JobSpec& spec) {
    if (spec.kind == JobKind::TrainJob) {
        return true;
    }
    const YAML::Node replicas = manifest["spec"][operator_kind(spec.kind).replica_specs];
    if (!replicas.IsMap() || replicas.size() == 0) {
        return false;
    }
    for (const auto& replica : replicas) {
        bool found = false;
        const YAML::Node containers = replica.second["template"]["spec"]["containers"];
        for (std::size_t c = 0; containers.IsSequence() && c < containers.size(); ++c) {
            const YAML::Node ports = containers[c]["ports"];
            for (std::size_t p = 0; ports.IsSequence() && p < ports.size(); ++p) {
                const YAML::Node name = ports[p]["name"];
                found = found || (name.IsScalar() && name.Scalar() == k_metrics_port_name);
            }
        }
        if (!found) {
            return false;
        }
    }
    return true;
}

YAML::Node pod_monitor(const JobSpec& spec) {
    YAML::Node monitor(YAML::NodeType::Map);
    monitor["apiVersion"] = string_node("monitoring.coreos.com/v1");
    monitor["kind"] = string_node("PodMonitor");
    monitor["metadata"]["name"] = string_node(spec.name);
    monitor["metadata"]["namespace"] = string_node(spec.namespace_);
    monitor["metadata"]["labels"]["app.kubernetes.io/managed-by"] = string_node("kftrain");
    monitor["metadata"]["labels"][k_job_label] = string_node(spec.name);
    monitor["spec"]["selector"]["matchLabels"][k_job_label] = string_node(spec.name);
    for (int i = 0; i < metrics_processes(spec); ++i) {
        monitor["spec"]["podMetricsEndpoints"].push_back(
            pod_endpoint(spec, i, spec.metrics_port() + i));
    }
    return monitor;
}

}  // namespace kftrain::manifest
