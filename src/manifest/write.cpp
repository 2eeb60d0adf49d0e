#include "manifest/write.h"

#include <fmt/format.h>

#include <algorithm>

#include "manifest/schema.h"
#include "manifest/yaml/emit.h"

namespace kftrain::manifest {
namespace {

// A scalar written as it is, unquoted: a number or a boolean, as the schema types the key.
YAML::Node plain_scalar(const std::string& text) {
    return YAML::Node(text);
}

// A number as its shortest text that reads back equal ("0.95", not "0.94999999999999996").
template <typename T>
YAML::Node typed_number(T value) {
    return plain_scalar(fmt::format("{}", value));
}

void put_string(YAML::Node& map, const char* key, const std::string& value,
                const std::string& fallback) {
    if (value != fallback) {
        map[key] = string_node(value);
    }
}

template <typename T>
void put_number(YAML::Node& map, const char* key, T value, T fallback) {
    if (value != fallback) {
        map[key] = typed_number(value);
    }
}

template <typename T>
void put_number(YAML::Node& map, const char* key, const std::optional<T>& value) {
    if (value) {
        map[key] = typed_number(*value);
    }
}

void put_bool(YAML::Node& map, const char* key, bool value, bool fallback) {
    if (value != fallback) {
        map[key] = plain_scalar(value ? "true" : "false");
    }
}

void put_strings(YAML::Node& map, const char* key, const std::vector<std::string>& values) {
    if (!values.empty()) {
        map[key] = string_list(values);
    }
}

// Put a map of strings, keys quoted too where YAML would read them as another type.
template <typename Entries>
void put_string_map(YAML::Node& map, const char* key, const Entries& entries) {
    YAML::Node node(YAML::NodeType::Map);
    for (const auto& [name, value] : entries) {
        node.force_insert(string_node(name), string_node(value));
    }
    if (node.size() > 0) {
        map[key] = node;
    }
}

// Put a section (an Object key) where any of its keys was written.
void put_section(YAML::Node& map, const char* key, const YAML::Node& section) {
    if (section.size() > 0) {
        map[key] = section;
    }
}

YAML::Node job_file_roles(const Roles& roles) {
    const Roles fallback;
    YAML::Node node(YAML::NodeType::Map);
    put_number(node, "chief", roles.chief, fallback.chief);
    put_number(node, "worker", roles.worker, fallback.worker);
    put_number(node, "ps", roles.ps, fallback.ps);
    put_number(node, "evaluator", roles.evaluator, fallback.evaluator);
    return node;
}

YAML::Node job_file_resources(const Resources& resources) {
    const Resources fallback;
    YAML::Node node(YAML::NodeType::Map);
    put_string(node, "cpu", resources.cpu, fallback.cpu);
    put_string(node, "memory", resources.memory, fallback.memory);
    put_number(node, "gpus", resources.gpus, fallback.gpus);
    YAML::Node limits(YAML::NodeType::Map);
    put_string(limits, "cpu", resources.cpu_limit, fallback.cpu_limit);
    put_string(limits, "memory", resources.memory_limit, fallback.memory_limit);
    put_section(node, "limits", limits);
    return node;
}

YAML::Node job_file_env(const std::map<std::string, EnvVar>& env) {
    YAML::Node node(YAML::NodeType::Map);
    for (const auto& [name, var] : env) {
        if (var.secret_name.empty() && var.secret_key.empty()) {
            node.force_insert(string_node(name), string_node(var.value));
            continue;
        }
        YAML::Node ref(YAML::NodeType::Map);
        ref["name"] = string_node(var.secret_name);
        ref["key"] = string_node(var.secret_key);
        YAML::Node value(YAML::NodeType::Map);
        value["secretKeyRef"] = ref;
        node.force_insert(string_node(name), value);
    }
    return node;
}

// The trainer's keys in the schema's order, each typed as the schema types it; a key the
// schema does not know follows as a string, for the loader to name.
YAML::Node job_file_trainer(const std::vector<std::pair<std::string, std::string>>& trainer) {
    YAML::Node node(YAML::NodeType::Map);
    const auto& defs = find_field("trainer")->children;
    for (const auto& def : defs) {
        auto it = std::find_if(trainer.begin(), trainer.end(),
                               [&def](const auto& entry) { return entry.first == def.name; });
        if (it == trainer.end()) {
            continue;
        }
        const bool text = def.type == FieldType::String || def.type == FieldType::Quantity;
        node[def.name] = text ? string_node(it->second) : plain_scalar(it->second);
    }
    for (const auto& [key, value] : trainer) {
        if (find_field("trainer." + key) == nullptr) {
            node.force_insert(string_node(key), string_node(value));
        }
    }
    return node;
}

YAML::Node job_file_mlflow(const MlflowSettings& mlflow) {
    const MlflowSettings fallback;
    YAML::Node node(YAML::NodeType::Map);
    put_string(node, "trackingUri", mlflow.tracking_uri, fallback.tracking_uri);
    put_string(node, "experiment", mlflow.experiment, fallback.experiment);
    put_string(node, "runName", mlflow.run_name, fallback.run_name);
    put_string(node, "credentialsSecret", mlflow.credentials_secret, fallback.credentials_secret);
    return node;
}

YAML::Node job_file_metrics(const MetricsSettings& metrics) {
    const MetricsSettings fallback;
    YAML::Node node(YAML::NodeType::Map);
    put_number(node, "port", metrics.port, fallback.port);
    put_string(node, "path", metrics.path, fallback.path);
    return node;
}

YAML::Node job_file_volumes(const std::vector<Volume>& volumes) {
    const Volume fallback;
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& volume : volumes) {
        YAML::Node node(YAML::NodeType::Map);
        put_string(node, "name", volume.name, fallback.name);
        put_string(node, "claim", volume.claim, fallback.claim);
        put_string(node, "configMap", volume.config_map, fallback.config_map);
        put_string(node, "mountPath", volume.mount_path, fallback.mount_path);
        put_bool(node, "readOnly", volume.read_only, fallback.read_only);
        put_string(node, "localPath", volume.local_path, fallback.local_path);
        list.push_back(node);
    }
    return list;
}

YAML::Node job_file_code(const CodeSettings& code) {
    const CodeSettings fallback;
    YAML::Node node(YAML::NodeType::Map);
    put_string(node, "path", code.path, fallback.path);
    put_string(node, "mountPath", code.mount_path, fallback.mount_path);
    put_strings(node, "exclude", code.exclude);
    return node;
}

YAML::Node job_file_run_policy(const RunPolicy& policy) {
    const RunPolicy fallback;
    YAML::Node node(YAML::NodeType::Map);
    put_number(node, "backoffLimit", policy.backoff_limit);
    put_number(node, "activeDeadlineSeconds", policy.active_deadline_seconds);
    put_number(node, "ttlSecondsAfterFinished", policy.ttl_seconds_after_finished);
    put_string(node, "cleanPodPolicy", policy.clean_pod_policy, fallback.clean_pod_policy);
    put_bool(node, "suspend", policy.suspend, fallback.suspend);
    YAML::Node scheduling(YAML::NodeType::Map);
    put_number(scheduling, "minAvailable", policy.scheduling.min_available);
    put_string(scheduling, "queue", policy.scheduling.queue, fallback.scheduling.queue);
    put_string(scheduling, "priorityClass", policy.scheduling.priority_class,
               fallback.scheduling.priority_class);
    put_section(node, "schedulingPolicy", scheduling);
    return node;
}

YAML::Node job_file_elastic(const ElasticPolicy& elastic) {
    const ElasticPolicy fallback;
    YAML::Node node(YAML::NodeType::Map);
    put_number(node, "minReplicas", elastic.min_replicas);
    put_number(node, "maxReplicas", elastic.max_replicas);
    put_number(node, "maxRestarts", elastic.max_restarts);
    put_string(node, "rdzvBackend", elastic.rdzv_backend, fallback.rdzv_backend);
    return node;
}

YAML::Node job_file_tolerations(const std::vector<Toleration>& tolerations) {
    const Toleration fallback;
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& toleration : tolerations) {
        YAML::Node node(YAML::NodeType::Map);
        put_string(node, "key", toleration.key, fallback.key);
        put_string(node, "operator", toleration.op, fallback.op);
        put_string(node, "value", toleration.value, fallback.value);
        put_string(node, "effect", toleration.effect, fallback.effect);
        put_number(node, "tolerationSeconds", toleration.seconds);
        list.push_back(node);
    }
    return list;
}

YAML::Node job_file_tune(const TuneSettings& tune) {
    const TuneSettings fallback;
    YAML::Node node(YAML::NodeType::Map);
    put_string(node, "name", tune.name, fallback.name);
    put_string_map(node, "params", tune.params);
    put_string(node, "objective", tune.objective, fallback.objective);
    put_number(node, "goal", tune.goal);
    put_number(node, "maxTrials", tune.max_trials);
    put_number(node, "parallel", tune.parallel);
    put_number(node, "maxFailedTrials", tune.max_failed_trials);
    put_string(node, "algorithm", tune.algorithm, fallback.algorithm);
    return node;
}

// Put the keys from kind to restartPolicy: what runs, and how many.
void put_workload(YAML::Node& job, const JobSpec& spec) {
    const JobSpec fallback;
    if (spec.kind != fallback.kind) {
        job["kind"] = string_node(kind_name(spec.kind));
    }
    put_string(job, "runtime", runtime_text(spec), runtime_text(fallback));
    put_string(job, "name", spec.name, fallback.name);
    put_string(job, "namespace", spec.namespace_, fallback.namespace_);
    put_string(job, "backend", spec.backend, fallback.backend);
    if (spec.image != fallback.image || spec.source.given("image")) {
        job["image"] = string_node(spec.image);
    }
    put_string(job, "imagePullPolicy", spec.image_pull_policy, fallback.image_pull_policy);
    put_strings(job, "imagePullSecrets", spec.image_pull_secrets);
    put_strings(job, "command", spec.command);
    if (spec.args) {
        job["args"] = string_list(*spec.args);
    }
    // Without the key, replicas is the total of roles where roles are set.
    put_number(job, "replicas", spec.replicas,
               spec.roles ? spec.roles->total() : fallback.replicas);
    if (spec.roles) {
        job["roles"] = job_file_roles(*spec.roles);
    }
    put_string(job, "nprocPerNode", spec.nproc_per_node, fallback.nproc_per_node);
    put_string(job, "restartPolicy", spec.restart_policy, fallback.restart_policy);
}

// Put the keys from resources to the end: what each replica gets, and where it runs.
void put_placement(YAML::Node& job, const JobSpec& spec) {
    const JobSpec fallback;
    put_section(job, "resources", job_file_resources(spec.resources));
    put_section(job, "env", job_file_env(spec.env));
    put_section(job, "trainer", job_file_trainer(spec.trainer));
    put_section(job, "mlflow", job_file_mlflow(spec.mlflow));
    put_section(job, "metrics", job_file_metrics(spec.metrics));
    put_section(job, "volumes", job_file_volumes(spec.volumes));
    put_section(job, "code", job_file_code(spec.code));
    put_section(job, "runPolicy", job_file_run_policy(spec.run_policy));
    if (spec.elastic_policy) {
        job["elasticPolicy"] = job_file_elastic(*spec.elastic_policy);
    }
    put_string_map(job, "nodeSelector", spec.node_selector);
    put_section(job, "tolerations", job_file_tolerations(spec.tolerations));
    put_string(job, "priorityClassName", spec.priority_class_name, fallback.priority_class_name);
    put_string(job, "queue", spec.queue, fallback.queue);
    put_string(job, "priorityClass", spec.queue_priority_class, fallback.queue_priority_class);
    put_string_map(job, "labels", spec.labels);
    put_string_map(job, "annotations", spec.annotations);
    put_section(job, "tune", job_file_tune(spec.tune));
}

}  // namespace

std::string runtime_text(const JobSpec& spec) {
    if (spec.runtime_namespaced) {
        return "TrainingRuntime/" + spec.runtime;
    }
    // A name that begins as a prefix does keeps the prefix it was read past.
    for (const char* prefix : {"TrainingRuntime/", "ClusterTrainingRuntime/"}) {
        if (spec.runtime.rfind(prefix, 0) == 0) {
            return "ClusterTrainingRuntime/" + spec.runtime;
        }
    }
    return spec.runtime;
}

YAML::Node job_file_node(const JobSpec& spec) {
    YAML::Node job(YAML::NodeType::Map);
    put_workload(job, spec);
    put_placement(job, spec);
    return job;
}

std::string write_job_file(const JobSpec& spec) {
    return to_yaml(job_file_node(spec));
}

}  // namespace kftrain::manifest
