#pragma once

// How Prometheus finds a job's metrics (trainer.metricsPort): the container port, the pod
// annotations the common `kubernetes-pods` scrape configuration reads, and a Prometheus
// Operator PodMonitor.

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include "manifest/job_spec.h"

namespace kftrain::manifest {

// The rendezvous ports of the job's master: the one the Training Operator declares in every
// PyTorchJob container (pytorchjob-port, MASTER_PORT), and Trainer v2's torch runtime's
// PET_MASTER_PORT.
inline constexpr int k_pytorchjob_master_port = 23456;
inline constexpr int k_trainjob_master_port = 29500;

// The name of the container port that serves /metrics.
inline constexpr const char* k_metrics_port_name = "metrics";

// The variable that tells a replica the port to serve its metrics at (kftrain-trainer takes
// --metrics-port; a program of the user's own reads it).
inline constexpr const char* k_metrics_port_env = "KFTRAIN_METRICS_PORT";

// Return how many processes of each pod serve metrics, each at the port plus its local rank:
// kftrain-trainer's processes per pod (trainer_procs_per_pod); one for a program of the
// user's own, which serves its pod's metrics as it sees fit.
int metrics_processes(const JobSpec& spec);

// Return the name of the container port of local process local_rank's metrics: metrics,
// metrics-1, metrics-2, ... (kftrain-trainer serves local rank i at trainer.metricsPort + i).
std::string metrics_port_name(int local_rank);

// Return the pods' annotations: the job's, plus prometheus.io/scrape, /port and /path when
// the job serves metrics (one the job file sets itself is kept).
std::map<std::string, std::string> pod_annotations(const JobSpec& spec);

// Return a PyTorchJob container's ports: the operator's pytorchjob-port, and when the job
// serves metrics one port per trainer process in the pod (trainer_procs_per_pod).
YAML::Node container_ports(const JobSpec& spec);

// Return whether every pod of a rendered job declares the metrics port a PodMonitor scrapes by
// name: a PyTorchJob's replica types each in a container port named metrics (a template of
// the user's own may leave it out). A TrainJob's are scraped by address: always true.
bool declares_metrics_port(const YAML::Node& manifest, const JobSpec& spec);

// Return a PodMonitor (monitoring.coreos.com/v1) that scrapes every process of every pod of
// the job: by the named ports for a PyTorchJob; for a TrainJob, whose runtime declares no
// metrics port, at the pod's address and each port. Call only for a job with a metrics port.
YAML::Node pod_monitor(const JobSpec& spec);

}  // namespace kftrain::manifest
