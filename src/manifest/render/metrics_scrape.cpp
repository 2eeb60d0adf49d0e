#include "manifest/render/metrics_scrape.h"

#include <string>

#include "manifest/render/job_label.h"
#include "manifest/yaml/emit.h"

namespace kftrain::manifest {
namespace {

// The port the Training Operator names in every PyTorchJob container (its default port).
constexpr const char* k_operator_port_name = "pytorchjob-port";
constexpr int k_operator_port = 23456;

YAML::Node port_entry(const char* name, int number) {
    YAML::Node port(YAML::NodeType::Map);
    port["name"] = string_node(name);
    port["containerPort"] = YAML::Node(number);
    port["protocol"] = string_node("TCP");
    return port;
}

}  // namespace

std::map<std::string, std::string> pod_annotations(const JobSpec& spec) {
    auto annotations = spec.annotations;
    const int port = spec.metrics_port();
    if (port > 0) {
        annotations.emplace("prometheus.io/scrape", "true");
        annotations.emplace("prometheus.io/port", std::to_string(port));
        annotations.emplace("prometheus.io/path", k_metrics_path);
    }
    return annotations;
}

YAML::Node container_ports(const JobSpec& spec) {
    YAML::Node ports(YAML::NodeType::Sequence);
    ports.push_back(port_entry(k_operator_port_name, k_operator_port));
    if (const int port = spec.metrics_port(); port > 0) {
        ports.push_back(port_entry(k_metrics_port_name, port));
    }
    return ports;
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
    YAML::Node endpoint(YAML::NodeType::Map);
    endpoint["path"] = string_node(k_metrics_path);
    // The trainer labels its samples with the job's name: keep it rather than exported_job.
    endpoint["honorLabels"] = YAML::Node(true);
    if (spec.kind == JobKind::TrainJob) {
        YAML::Node keep(YAML::NodeType::Map);
        keep["action"] = string_node("keep");
        keep["sourceLabels"].push_back(string_node("__meta_kubernetes_pod_container_name"));
        keep["regex"] = string_node("node");
        YAML::Node address(YAML::NodeType::Map);
        address["action"] = string_node("replace");
        address["sourceLabels"].push_back(string_node("__meta_kubernetes_pod_ip"));
        address["targetLabel"] = string_node("__address__");
        address["replacement"] = string_node("$1:" + std::to_string(spec.metrics_port()));
        endpoint["relabelings"].push_back(keep);
        endpoint["relabelings"].push_back(address);
    } else {
        endpoint["port"] = string_node(k_metrics_port_name);
    }
    monitor["spec"]["podMetricsEndpoints"].push_back(endpoint);
    return monitor;
}

}  // namespace kftrain::manifest
