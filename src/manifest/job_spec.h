#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "manifest/job_kind.h"

namespace kftrain::manifest {

// The values of the job file's backend key (and of JobStatus::backend): where a job runs.
inline constexpr const char* k_backend_kubernetes = "kubernetes";
inline constexpr const char* k_backend_local = "local";

// An environment variable: a plain value or a key of a Kubernetes Secret.
struct EnvVar {
    std::string value;
    std::string secret_name;  // set for secretKeyRef
    std::string secret_key;
    bool optional = false;  // the Secret may lack the key
};

// A key of a ConfigMap volume laid out as a file: key -> path (relative), with its mode.
struct VolumeItem {
    std::string key;
    std::string path;
    int mode = 0644;
};

// A volume mounted in every replica.
struct Volume {
    std::string name;
    std::string claim;              // PersistentVolumeClaim, or
    std::string config_map;         // ConfigMap
    std::vector<VolumeItem> items;  // a ConfigMap's keys as files; empty: every key by name
    std::string mount_path;
    bool read_only = false;
    std::string local_path;  // used by the local backend instead
    // An empty directory of the pod's own (emptyDir) in place of the claim: what a measurement
    // on the cluster mounts for a writable volume, so a real run's files are never touched.
    bool scratch = false;
};

// The folder a job ships with it (the job file's code, docs/code.md).
struct CodeSettings {
    std::string path;  // as written (relative to the job file's folder); empty: none
    std::string mount_path = "/workspace";
    std::vector<std::string> exclude;  // globs, beside the defaults and .kftrainignore's
};

struct Resources {
    std::string cpu;
    std::string memory;
    int gpus = 0;
    std::string cpu_limit;     // empty: same as cpu
    std::string memory_limit;  // empty: same as memory
};

// A taint the pods tolerate; empty strings are unset.
struct Toleration {
    std::string key;
    std::string op;
    std::string value;
    std::string effect;
    std::optional<int64_t> seconds;
};

struct MlflowSettings {
    std::string tracking_uri;
    std::string experiment;
    std::string run_name;
    std::string credentials_secret;
};

// Where a program of the user's own serves Prometheus metrics (the job file's metrics).
struct MetricsSettings {
    int port = 0;  // 0: none
    std::string path = "/metrics";
};

// A TFJob's replicas by role (the job file's roles).
struct Roles {
    int chief = 0;
    int worker = 0;
    int ps = 0;
    int evaluator = 0;
    int total() const { return chief + worker + ps + evaluator; }
};

struct SchedulingPolicy {
    std::optional<int> min_available;
    std::string queue;
    std::string priority_class;
};

struct RunPolicy {
    std::optional<int> backoff_limit;
    std::optional<int64_t> active_deadline_seconds;
    std::optional<int> ttl_seconds_after_finished;
    std::string clean_pod_policy;  // empty: operator default
    bool suspend = false;
    SchedulingPolicy scheduling;
};

struct ElasticPolicy {
    std::optional<int> min_replicas;
    std::optional<int> max_replicas;
    std::optional<int> max_restarts;
    std::string rdzv_backend;
};

// The job file's tune section, as written: what `kftrain tune` searches. The tune module
// parses and checks it (tune/tune_spec.h); flags override it.
struct TuneSettings {
    std::vector<std::pair<std::string, std::string>> params;  // trainer key -> space, file order
    std::string name;       // the search's (Experiment's) name; empty: the job's
    std::string objective;  // "accuracy", "loss:minimize"; empty: unset
    std::optional<double> goal;
    std::optional<int> max_trials;
    std::optional<int> parallel;
    std::optional<int> max_failed_trials;
    std::string algorithm;  // empty: unset
};

// Where each field of a job file came from, for messages that point at it.
struct SourceMap {
    std::string file;                               // the job file's path as given
    std::map<std::string, int> lines;               // dotted path -> 1-based line
    std::map<std::string, std::string> from_flags;  // dotted path -> "--set" or "--namespace"

    // Name the place of a field: "job.yaml:12: replicas" or "--set replicas".
    std::string locate(const std::string& path) const;
    // Return whether the job file (a line of it) or a flag gave the field, or a key within it.
    bool given(const std::string& path) const;
};

// A job file, loaded, type-checked and with every default applied.
struct JobSpec {
    JobKind kind = JobKind::PyTorchJob;
    // TrainJob only: the runtime it refers to, a ClusterTrainingRuntime unless
    // runtime_namespaced (a TrainingRuntime of the job's namespace).
    std::string runtime = "torch-distributed";
    bool runtime_namespaced = false;
    std::string name;
    std::string namespace_ = "default";
    std::string backend;  // "", "kubernetes" or "local"
    std::string image = "kftrain/trainer:latest";
    std::string image_pull_policy = "IfNotPresent";
    std::vector<std::string> image_pull_secrets;
    std::vector<std::string> command;              // empty: kftrain-trainer
    std::optional<std::vector<std::string>> args;  // unset: from trainer
    int replicas = 2;
    std::optional<Roles> roles;  // TFJob only; replicas is then their total
    std::string nproc_per_node;  // empty: not set
    std::string restart_policy = "OnFailure";
    Resources resources;
    std::map<std::string, EnvVar> env;
    // trainer key (camelCase) -> value as written; flags in key order.
    std::vector<std::pair<std::string, std::string>> trainer;
    MlflowSettings mlflow;
    MetricsSettings metrics;  // a program of the user's own; the trainer's is trainer.metricsPort
    std::vector<Volume> volumes;
    CodeSettings code;
    // The replicas' working directory (code.mountPath when code is shipped); empty: the image's.
    std::string working_dir;
    RunPolicy run_policy;
    std::optional<ElasticPolicy> elastic_policy;
    std::map<std::string, std::string> node_selector;
    std::vector<Toleration> tolerations;
    std::string priority_class_name;
    // Kueue: the LocalQueue the job waits in (the kueue.x-k8s.io/queue-name label; the job is
    // created suspended for Kueue to admit) and its WorkloadPriorityClass; empty: not queued.
    std::string queue;
    std::string queue_priority_class;
    std::map<std::string, std::string> labels;
    std::map<std::string, std::string> annotations;
    TuneSettings tune;  // used by `kftrain tune` only

    SourceMap source;

    // Return a trainer setting, or the fallback when the job file does not set it.
    std::string trainer_value(const std::string& key, const std::string& fallback) const;
    // Return whether the job runs kftrain-trainer (no command, or one whose program is
    // kftrain-trainer): what the built-in profiles and trainer.* settings describe.
    bool runs_trainer() const;
    // Return the port the replicas serve Prometheus metrics at: trainer.metricsPort for a job
    // that runs kftrain-trainer, metrics.port for a program of the user's own; 0 when none.
    int metrics_port() const;
    // Return the HTTP path of the metrics: the trainer's /metrics, or metrics.path.
    std::string metrics_path() const;
    // Return the number of Worker replicas (replicas - 1).
    int worker_replicas() const { return replicas - 1; }
};

}  // namespace kftrain::manifest
