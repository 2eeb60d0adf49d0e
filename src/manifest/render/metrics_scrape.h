#pragma once

// How Prometheus finds a job's metrics (trainer.metricsPort): the container port, the pod
// annotations the common `kubernetes-pods` scrape configuration reads, and a Prometheus
// Operator PodMonitor.

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include "manifest/job_spec.h"

namespace kftrain::manifest {

// The name of the container port that serves /metrics.
inline constexpr const char* k_metrics_port_name = "metrics";
inline constexpr const char* k_metrics_path = "/metrics";

// Return the pods' annotations: the job's, plus prometheus.io/scrape, /port and /path when
// the job serves metrics (one the job file sets itself is kept).
std::map<std::string, std::string> pod_annotations(const JobSpec& spec);

// Return a PyTorchJob container's ports: the operator's pytorchjob-port, and the metrics port
// when the job serves metrics.
YAML::Node container_ports(const JobSpec& spec);

// Return a PodMonitor (monitoring.coreos.com/v1) that scrapes every pod of the job: by the
// named port for a PyTorchJob; for a TrainJob, whose runtime declares no metrics port, at the
// pod's address and the port. Call only for a job with a metrics port.
YAML::Node pod_monitor(const JobSpec& spec);

}  // namespace kftrain::manifest
