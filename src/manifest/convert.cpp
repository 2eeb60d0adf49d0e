#include "manifest/convert.h"

#include <cstdlib>
#include <limits>
#include <type_traits>

#include "manifest/code.h"
#include "manifest/schema.h"
#include "util/text.h"

namespace kftrain::manifest {
namespace {

bool present(const YAML::Node& node) {
    return node.IsDefined() && !node.IsNull();
}

void read(const YAML::Node& node, std::string& out) {
    if (present(node)) {
        out = node.Scalar();
    }
}

// A number as node_check checked it (decimal: "010" is ten, where yaml-cpp's as<int> reads
// octal eight and throws on "09"; integers within int's range); nullopt when absent.
template <typename T>
std::optional<T> number(const YAML::Node& node) {
    if (!present(node)) {
        return std::nullopt;
    }
    auto value = util::parse_number(node.Scalar(), std::is_integral_v<T>);
    if (!value || *value < static_cast<double>(std::numeric_limits<T>::lowest()) ||
        *value > static_cast<double>(std::numeric_limits<T>::max())) {
        return std::nullopt;
    }
    return static_cast<T>(*value);
}

template <typename T>
void read(const YAML::Node& node, std::optional<T>& out) {
    if (auto value = number<T>(node)) {
        out = value;
    }
}

void read(const YAML::Node& node, int& out) {
    if (auto value = number<int>(node)) {
        out = *value;
    }
}

void read(const YAML::Node& node, bool& out) {
    if (present(node)) {
        out = node.Scalar() == "true";
    }
}

void read(const YAML::Node& node, std::vector<std::string>& out) {
    if (present(node)) {
        out.clear();
        for (const auto& item : node) {
            out.push_back(item.Scalar());
        }
    }
}

void read(const YAML::Node& node, std::map<std::string, std::string>& out) {
    if (present(node)) {
        for (const auto& entry : node) {
            out[entry.first.Scalar()] = present(entry.second) ? entry.second.Scalar() : "";
        }
    }
}

void read_env(const YAML::Node& node, std::map<std::string, EnvVar>& out) {
    if (!present(node)) {
        return;
    }
    for (const auto& entry : node) {
        EnvVar var;
        if (entry.second.IsMap()) {
            var.secret_name = entry.second["secretKeyRef"]["name"].Scalar();
            var.secret_key = entry.second["secretKeyRef"]["key"].Scalar();
        } else if (present(entry.second)) {
            var.value = entry.second.Scalar();
        }
        out[entry.first.Scalar()] = var;
    }
}

void read_metrics(const YAML::Node& node, MetricsSettings& out) {
    if (present(node)) {
        read(node["port"], out.port);
        read(node["path"], out.path);
    }
}

// A TFJob's roles; replicas, unless the file sets it too (validation compares), is their total.
void read_roles(const YAML::Node& node, JobSpec& spec) {
    if (!present(node)) {
        return;
    }
    Roles roles;
    read(node["chief"], roles.chief);
    read(node["worker"], roles.worker);
    read(node["ps"], roles.ps);
    read(node["evaluator"], roles.evaluator);
    spec.roles = roles;
}

void read_resources(const YAML::Node& node, Resources& out) {
    if (!present(node)) {
        return;
    }
    read(node["cpu"], out.cpu);
    read(node["memory"], out.memory);
    read(node["gpus"], out.gpus);
    if (present(node["limits"])) {
        read(node["limits"]["cpu"], out.cpu_limit);
        read(node["limits"]["memory"], out.memory_limit);
    }
}

void read_volumes(const YAML::Node& node, std::vector<Volume>& out) {
    if (!present(node)) {
        return;
    }
    for (const auto& item : node) {
        Volume v;
        read(item["name"], v.name);
        read(item["claim"], v.claim);
        read(item["configMap"], v.config_map);
        read(item["mountPath"], v.mount_path);
        read(item["readOnly"], v.read_only);
        read(item["localPath"], v.local_path);
        out.push_back(v);
    }
}

void read_code(const YAML::Node& node, CodeSettings& out) {
    if (!present(node)) {
        return;
    }
    read(node["path"], out.path);
    read(node["mountPath"], out.mount_path);
    read(node["exclude"], out.exclude);
}

void read_run_policy(const YAML::Node& node, RunPolicy& out) {
    if (!present(node)) {
        return;
    }
    read(node["backoffLimit"], out.backoff_limit);
    read(node["activeDeadlineSeconds"], out.active_deadline_seconds);
    read(node["ttlSecondsAfterFinished"], out.ttl_seconds_after_finished);
    read(node["cleanPodPolicy"], out.clean_pod_policy);
    read(node["suspend"], out.suspend);
    const YAML::Node scheduling = node["schedulingPolicy"];
    if (present(scheduling)) {
        read(scheduling["minAvailable"], out.scheduling.min_available);
        read(scheduling["queue"], out.scheduling.queue);
        read(scheduling["priorityClass"], out.scheduling.priority_class);
    }
}

void read_tolerations(const YAML::Node& node, std::vector<Toleration>& out) {
    if (!present(node)) {
        return;
    }
    for (const auto& item : node) {
        Toleration t;
        read(item["key"], t.key);
        read(item["operator"], t.op);
        read(item["value"], t.value);
        read(item["effect"], t.effect);
        read(item["tolerationSeconds"], t.seconds);
        out.push_back(t);
    }
}

// Read the tune section; params keep the file's order, as the search table shows them.
void read_tune(const YAML::Node& node, TuneSettings& out) {
    if (!present(node)) {
        return;
    }
    if (present(node["params"])) {
        for (const auto& entry : node["params"]) {
            out.params.emplace_back(entry.first.Scalar(), entry.second.Scalar());
        }
    }
    read(node["name"], out.name);
    read(node["objective"], out.objective);
    read(node["goal"], out.goal);
    read(node["maxTrials"], out.max_trials);
    read(node["parallel"], out.parallel);
    read(node["maxFailedTrials"], out.max_failed_trials);
    read(node["algorithm"], out.algorithm);
}

std::optional<ElasticPolicy> read_elastic(const YAML::Node& node) {
    if (!present(node)) {
        return std::nullopt;
    }
    ElasticPolicy out;
    read(node["minReplicas"], out.min_replicas);
    read(node["maxReplicas"], out.max_replicas);
    read(node["maxRestarts"], out.max_restarts);
    read(node["rdzvBackend"], out.rdzv_backend);
    return out;
}

// A program of the user's own and no image: the kind's official image, which has its
// interpreter (docs/code.md), never the trainer's, which has none.
void default_image(const YAML::Node& root, JobSpec& spec) {
    if (!present(root["image"]) && !spec.runs_trainer()) {
        spec.image = default_code_image(spec);
    }
}

}  // namespace

JobSpec to_job_spec(const YAML::Node& root) {
    JobSpec spec;
    if (present(root["kind"])) {
        spec.kind = parse_kind(root["kind"].Scalar()).value_or(JobKind::PyTorchJob);
    }
    if (present(root["runtime"])) {
        set_runtime(spec, root["runtime"].Scalar());
    }
    read(root["name"], spec.name);
    read(root["namespace"], spec.namespace_);
    read(root["backend"], spec.backend);
    read(root["image"], spec.image);
    read(root["imagePullPolicy"], spec.image_pull_policy);
    read(root["imagePullSecrets"], spec.image_pull_secrets);
    read(root["command"], spec.command);
    if (present(root["args"])) {
        spec.args.emplace();
        read(root["args"], *spec.args);
    }
    read(root["replicas"], spec.replicas);
    read_roles(root["roles"], spec);
    if (spec.roles && !present(root["replicas"])) {
        spec.replicas = spec.roles->total();
    }
    read(root["nprocPerNode"], spec.nproc_per_node);
    read(root["restartPolicy"], spec.restart_policy);
    read_resources(root["resources"], spec.resources);
    read_env(root["env"], spec.env);
    // Trainer keys in schema order, so the rendered flags are stable.
    const YAML::Node trainer = root["trainer"];
    if (present(trainer)) {
        for (const auto& def : find_field("trainer")->children) {
            if (present(trainer[def.name])) {
                spec.trainer.emplace_back(def.name, trainer[def.name].Scalar());
            }
        }
    }
    const YAML::Node mlflow = root["mlflow"];
    if (present(mlflow)) {
        read(mlflow["trackingUri"], spec.mlflow.tracking_uri);
        read(mlflow["experiment"], spec.mlflow.experiment);
        read(mlflow["runName"], spec.mlflow.run_name);
        read(mlflow["credentialsSecret"], spec.mlflow.credentials_secret);
    }
    read_metrics(root["metrics"], spec.metrics);
    read_volumes(root["volumes"], spec.volumes);
    read_code(root["code"], spec.code);
    read_run_policy(root["runPolicy"], spec.run_policy);
    spec.elastic_policy = read_elastic(root["elasticPolicy"]);
    read(root["nodeSelector"], spec.node_selector);
    read_tolerations(root["tolerations"], spec.tolerations);
    read(root["priorityClassName"], spec.priority_class_name);
    read(root["queue"], spec.queue);
    read(root["priorityClass"], spec.queue_priority_class);
    read(root["labels"], spec.labels);
    read(root["annotations"], spec.annotations);
    read_tune(root["tune"], spec.tune);
    default_image(root, spec);
    return spec;
}

void set_runtime(JobSpec& spec, const std::string& text) {
    spec.runtime = text;
    spec.runtime_namespaced = false;
    for (const std::string prefix : {"TrainingRuntime/", "ClusterTrainingRuntime/"}) {
        if (spec.runtime.rfind(prefix, 0) == 0) {
            spec.runtime_namespaced = prefix == "TrainingRuntime/";
            spec.runtime.erase(0, prefix.size());
        }
    }
}

bool JobSpec::runs_trainer() const {
    if (command.empty()) {
        return true;
    }
    const std::string& program = command.front();
    const auto slash = program.rfind('/');
    return (slash == std::string::npos ? program : program.substr(slash + 1)) == "kftrain-trainer";
}

int JobSpec::metrics_port() const {
    if (!runs_trainer()) {
        return metrics.port;
    }
    if (args) {
        return 0;  // trainer.* reaches the trainer only as the args kftrain makes from it
    }
    const std::string text = trainer_value("metricsPort", "0");
    char* end = nullptr;
    const long port = std::strtol(text.c_str(), &end, 10);
    return end != text.c_str() && *end == '\0' && port > 0 && port <= 65535 ? static_cast<int>(port)
                                                                            : 0;
}

std::string JobSpec::metrics_path() const {
    return runs_trainer() ? "/metrics" : metrics.path;
}

std::string JobSpec::trainer_value(const std::string& key, const std::string& fallback) const {
    for (const auto& [name, value] : trainer) {
        if (name == key) {
            return value;
        }
    }
    return fallback;
}

}  // namespace kftrain::manifest
