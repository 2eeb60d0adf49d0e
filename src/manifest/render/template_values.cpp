#include "manifest/render/template_values.h"

#include "manifest/framework.h"
#include "manifest/nproc.h"
#include "manifest/render/metrics_scrape.h"
#include "manifest/schema.h"
#include "manifest/yaml/emit.h"
#include "util/text.h"

namespace kftrain::manifest {
namespace {

YAML::Node string_map(const std::map<std::string, std::string>& entries) {
    if (entries.empty()) {
        return YAML::Node();
    }
    YAML::Node map(YAML::NodeType::Map);
    for (const auto& [key, value] : entries) {
        map[key] = string_node(value);
    }
    return map;
}

YAML::Node int_node(long long value) {
    return YAML::Node(value);
}

YAML::Node resources_node(const Resources& r) {
    YAML::Node requests(YAML::NodeType::Map);
    YAML::Node limits(YAML::NodeType::Map);
    auto put = [](YAML::Node& map, const char* key, const std::string& value) {
        if (!value.empty()) {
            map[key] = string_node(value);
        }
    };
    put(requests, "cpu", r.cpu);
    put(requests, "memory", r.memory);
    put(limits, "cpu", r.cpu_limit.empty() ? r.cpu : r.cpu_limit);
    put(limits, "memory", r.memory_limit.empty() ? r.memory : r.memory_limit);
    if (r.gpus > 0) {
        limits["nvidia.com/gpu"] = int_node(r.gpus);
    }
    YAML::Node out(YAML::NodeType::Map);
    if (requests.size() > 0) {
        out["requests"] = requests;
    }
    if (limits.size() > 0) {
        out["limits"] = limits;
    }
    return out.size() > 0 ? out : YAML::Node();
}

YAML::Node env_node(const JobSpec& spec) {
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& [name, var] : job_environment(spec)) {
        YAML::Node entry(YAML::NodeType::Map);
        entry["name"] = string_node(name);
        if (var.secret_name.empty()) {
            entry["value"] = string_node(var.value);
        } else {
            YAML::Node ref(YAML::NodeType::Map);
            ref["name"] = string_node(var.secret_name);
            ref["key"] = string_node(var.secret_key);
            if (var.optional) {
                ref["optional"] = YAML::Node(true);
            }
            YAML::Node from(YAML::NodeType::Map);
            from["secretKeyRef"] = ref;
            entry["valueFrom"] = from;
        }
        list.push_back(entry);
    }
    return list.size() > 0 ? list : YAML::Node();
}

YAML::Node volumes_node(const JobSpec& spec) {
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& v : spec.volumes) {
        YAML::Node entry(YAML::NodeType::Map);
        entry["name"] = string_node(v.name);
        YAML::Node source(YAML::NodeType::Map);
        if (v.scratch) {
            entry["emptyDir"] = source;
        } else if (!v.claim.empty()) {
            source["claimName"] = string_node(v.claim);
            if (v.read_only) {
                source["readOnly"] = YAML::Node(true);
            }
            entry["persistentVolumeClaim"] = source;
        } else {
            source["name"] = string_node(v.config_map);
            YAML::Node items(YAML::NodeType::Sequence);
            for (const auto& item : v.items) {
                YAML::Node file(YAML::NodeType::Map);
                file["key"] = string_node(item.key);
                file["path"] = string_node(item.path);
                file["mode"] = int_node(item.mode);
                items.push_back(file);
            }
            if (items.size() > 0) {
                source["items"] = items;
            }
            entry["configMap"] = source;
        }
        list.push_back(entry);
    }
    return list.size() > 0 ? list : YAML::Node();
}

YAML::Node volume_mounts_node(const JobSpec& spec) {
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& v : spec.volumes) {
        YAML::Node entry(YAML::NodeType::Map);
        entry["name"] = string_node(v.name);
        entry["mountPath"] = string_node(v.mount_path);
        if (v.read_only) {
            entry["readOnly"] = YAML::Node(true);
        }
        list.push_back(entry);
    }
    return list.size() > 0 ? list : YAML::Node();
}

YAML::Node run_policy_node(const RunPolicy& p) {
    YAML::Node out(YAML::NodeType::Map);
    if (p.backoff_limit) {
        out["backoffLimit"] = int_node(*p.backoff_limit);
    }
    if (p.active_deadline_seconds) {
        out["activeDeadlineSeconds"] = int_node(*p.active_deadline_seconds);
    }
    if (p.ttl_seconds_after_finished) {
        out["ttlSecondsAfterFinished"] = int_node(*p.ttl_seconds_after_finished);
    }
    if (!p.clean_pod_policy.empty()) {
        out["cleanPodPolicy"] = string_node(p.clean_pod_policy);
    }
    if (p.suspend) {
        out["suspend"] = YAML::Node(true);
    }
    YAML::Node scheduling(YAML::NodeType::Map);
    if (p.scheduling.min_available) {
        scheduling["minAvailable"] = int_node(*p.scheduling.min_available);
    }
    if (!p.scheduling.queue.empty()) {
        scheduling["queue"] = string_node(p.scheduling.queue);
    }
    if (!p.scheduling.priority_class.empty()) {
        scheduling["priorityClass"] = string_node(p.scheduling.priority_class);
    }
    if (scheduling.size() > 0) {
        out["schedulingPolicy"] = scheduling;
    }
    return out.size() > 0 ? out : YAML::Node();
}

YAML::Node elastic_node(const std::optional<ElasticPolicy>& policy) {
    if (!policy) {
        return YAML::Node();
    }
    YAML::Node out(YAML::NodeType::Map);
    if (policy->min_replicas) {
        out["minReplicas"] = int_node(*policy->min_replicas);
    }
    if (policy->max_replicas) {
        out["maxReplicas"] = int_node(*policy->max_replicas);
    }
    if (policy->max_restarts) {
        out["maxRestarts"] = int_node(*policy->max_restarts);
    }
    if (!policy->rdzv_backend.empty()) {
        out["rdzvBackend"] = string_node(policy->rdzv_backend);
    }
    return out;
}

YAML::Node tolerations_node(const std::vector<Toleration>& tolerations) {
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& t : tolerations) {
        YAML::Node entry(YAML::NodeType::Map);
        for (auto [key, value] : {std::pair{"key", &t.key}, std::pair{"operator", &t.op},
                                  std::pair{"value", &t.value}, std::pair{"effect", &t.effect}}) {
            if (!value->empty()) {
                entry[key] = string_node(*value);
            }
        }
        if (t.seconds) {
            entry["tolerationSeconds"] = int_node(*t.seconds);
        }
        list.push_back(entry);
    }
    return list.size() > 0 ? list : YAML::Node();
}

YAML::Node optional_string(const std::string& value) {
    return value.empty() ? YAML::Node() : string_node(value);
}

// Return whether the job is created suspended: asked for, or queued (Kueue unsuspends it).
bool is_suspended(const JobSpec& spec) {
    return spec.run_policy.suspend || !spec.queue.empty();
}

// Return the job's own labels: the pods' plus Kueue's, which only the job carries.
std::map<std::string, std::string> job_labels(const JobSpec& spec,
                                              std::map<std::string, std::string> labels) {
    if (!spec.queue.empty()) {
        labels[k_queue_label] = spec.queue;
    }
    if (!spec.queue_priority_class.empty()) {
        labels[k_queue_priority_label] = spec.queue_priority_class;
    }
    return labels;
}

// Each replica type's count, where the kind has it (workerReplicas: the Workers beside a
// Master, or a TFJob's); unset where the job has none, so the type is dropped.
void add_replica_counts(const JobSpec& spec, std::map<std::string, YAML::Node>& values) {
    for (const char* type : {"Worker", "Chief", "PS", "Evaluator"}) {
        values[util::to_lower(type) + "Replicas"] = YAML::Node();
    }
    if (is_operator_kind(spec.kind)) {
        for (const auto& [type, count] : replica_types(spec)) {
            values[util::to_lower(type) + "Replicas"] = int_node(count);
        }
    }
}

}  // namespace

std::vector<std::string> container_command(const JobSpec& spec) {
    return spec.command.empty() ? std::vector<std::string>{k_trainer_command} : spec.command;
}

std::vector<std::string> container_args(const JobSpec& spec) {
    if (spec.args || !spec.command.empty()) {
        return spec.args.value_or(std::vector<std::string>{});
    }
    std::vector<std::string> args;
    for (const auto& [key, value] : spec.trainer) {
        args.push_back(trainer_flag(key));
        args.push_back(value);
    }
    args.push_back("--log-format");
    args.push_back("json");
    return args;
}

std::vector<std::pair<std::string, EnvVar>> job_environment(const JobSpec& spec) {
    std::vector<std::pair<std::string, EnvVar>> env;
    for (const auto& [name, var] : spec.env) {
        env.emplace_back(name, var);
    }
    const MlflowSettings& m = spec.mlflow;
    if (!m.tracking_uri.empty()) {
        env.emplace_back("MLFLOW_TRACKING_URI", EnvVar{m.tracking_uri, "", ""});
        if (!m.experiment.empty()) {
            env.emplace_back("MLFLOW_EXPERIMENT_NAME", EnvVar{m.experiment, "", ""});
        }
        env.emplace_back("MLFLOW_RUN_NAME",
                         EnvVar{m.run_name.empty() ? spec.name : m.run_name, "", ""});
        env.emplace_back("KFTRAIN_JOB_NAME", EnvVar{spec.name, "", ""});
        env.emplace_back("KFTRAIN_NAMESPACE", EnvVar{spec.namespace_, "", ""});
        env.emplace_back("KFTRAIN_IMAGE", EnvVar{spec.image, "", ""});
    } else if (spec.metrics_port() > 0) {
        // The trainer labels its metrics with it.
        env.emplace_back("KFTRAIN_JOB_NAME", EnvVar{spec.name, "", ""});
    }
    if (spec.metrics_port() > 0) {
        env.emplace_back(k_metrics_port_env, EnvVar{std::to_string(spec.metrics_port()), "", ""});
    }
    if (!m.credentials_secret.empty()) {
        for (const char* key :
             {"MLFLOW_TRACKING_TOKEN", "MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD"}) {
            env.emplace_back(key, EnvVar{"", m.credentials_secret, key, true});
        }
    }
    return env;
}

std::map<std::string, YAML::Node> template_values(const JobSpec& spec) {
    std::map<std::string, std::string> labels = spec.labels;
    labels["app.kubernetes.io/managed-by"] = "kftrain";
    labels[k_job_label] = spec.name;
    std::vector<std::string> args = container_args(spec);

    std::map<std::string, YAML::Node> values;
    values["name"] = string_node(spec.name);
    values["namespace"] = string_node(spec.namespace_);
    values["labels"] = string_map(job_labels(spec, labels));
    values["podLabels"] = string_map(labels);
    values["annotations"] = string_map(spec.annotations);
    values["podAnnotations"] = string_map(pod_annotations(spec));
    values["ports"] = container_ports(spec);
    values["nprocPerNode"] = optional_string(spec.nproc_per_node);
    RunPolicy run_policy = spec.run_policy;
    run_policy.suspend = is_suspended(spec);  // Kueue admits a queued job by unsuspending it
    values["runPolicy"] = run_policy_node(run_policy);
    values["elasticPolicy"] = elastic_node(spec.elastic_policy);
    values["replicas"] = int_node(spec.replicas);
    add_replica_counts(spec, values);
    values["restartPolicy"] = string_node(spec.restart_policy);
    values["image"] = optional_string(spec.image);  // a TrainJob with code: its runtime's
    values["workingDir"] = optional_string(spec.working_dir);
    values["imagePullPolicy"] = string_node(spec.image_pull_policy);
    values["command"] = string_list(container_command(spec));
    values["args"] = args.empty() ? YAML::Node() : string_list(args);
    values["env"] = env_node(spec);
    values["resources"] = resources_node(spec.resources);
    values["volumeMounts"] = volume_mounts_node(spec);
    values["volumes"] = volumes_node(spec);
    YAML::Node secrets(YAML::NodeType::Sequence);
    for (const auto& name : spec.image_pull_secrets) {
        YAML::Node entry(YAML::NodeType::Map);
        entry["name"] = string_node(name);
        secrets.push_back(entry);
    }
    values["imagePullSecrets"] = secrets.size() > 0 ? secrets : YAML::Node();
    values["nodeSelector"] = string_map(spec.node_selector);
    values["tolerations"] = tolerations_node(spec.tolerations);
    values["priorityClassName"] = optional_string(spec.priority_class_name);
    // TrainJob: numProcPerNode is a number there; auto is its default, so it is left out.
    values["runtime"] = string_node(spec.runtime);
    values["runtimeKind"] =
        string_node(spec.runtime_namespaced ? "TrainingRuntime" : "ClusterTrainingRuntime");
    values["numNodes"] = int_node(spec.replicas);
    auto nproc = nproc_count(spec.nproc_per_node);
    values["numProcPerNode"] = nproc ? int_node(*nproc) : YAML::Node();
    const auto& deadline = spec.run_policy.active_deadline_seconds;
    values["activeDeadlineSeconds"] = deadline ? int_node(*deadline) : YAML::Node();
    values["suspend"] = is_suspended(spec) ? YAML::Node(true) : YAML::Node();
    return values;
}

}  // namespace kftrain::manifest
