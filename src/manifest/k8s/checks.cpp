#include "manifest/k8s/checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "manifest/k8s/rules.h"
#include "manifest/render/template_values.h"

namespace kftrain::manifest {
namespace {

using util::error;
using util::Status;

Status fail(const std::string& where, const std::string& rule, const std::string& got) {
    return error(fmt::format("{}: {} (got {})", where, rule, got.empty() ? "nothing" : got));
}

std::string locate_key(const JobSpec& spec, const std::string& map, const std::string& key) {
    return locate_map_key(spec.source, map, key);
}

// Check a map of labels (labels, nodeSelector): qualified-name keys, label values.
Status check_label_map(const JobSpec& spec, const std::string& map,
                       const std::map<std::string, std::string>& labels) {
    for (const auto& [key, value] : labels) {
        if (std::string rule = qualified_name_problem(key); !rule.empty()) {
            return fail(locate_key(spec, map, key), "the key " + rule, key);
        }
        if (std::string rule = label_value_problem(value); !rule.empty()) {
            return fail(locate_key(spec, map, key), rule, value);
        }
    }
    return util::ok_status();
}

Status check_metadata(const JobSpec& spec) {
    for (const auto& [map, entries] :
         {std::pair{"labels", &spec.labels}, std::pair{"nodeSelector", &spec.node_selector}}) {
        if (auto checked = check_label_map(spec, map, *entries); !checked) {
            return checked;
        }
    }
    for (const auto& [key, value] : spec.annotations) {
        if (std::string rule = annotation_key_problem(key); !rule.empty()) {
            return fail(locate_key(spec, "annotations", key), "the key " + rule, key);
        }
    }
    if (std::string rule = annotations_size_problem(spec.annotations); !rule.empty()) {
        return fail(spec.source.locate("annotations"), rule,
                    fmt::format("{} annotations", spec.annotations.size()));
    }
    return util::ok_status();
}

Status check_scheduling(const JobSpec& spec) {
    for (size_t i = 0; i < spec.tolerations.size(); ++i) {
        if (auto problem = toleration_problem(spec.tolerations[i])) {
            std::string path = fmt::format("tolerations[{}].{}", i, problem->field);
            return fail(spec.source.locate(path), problem->rule, problem->value);
        }
    }
    const SchedulingPolicy& gang = spec.run_policy.scheduling;
    const std::pair<const char*, const std::string*> classes[] = {
        {"priorityClassName", &spec.priority_class_name},
        {"runPolicy.schedulingPolicy.priorityClass", &gang.priority_class},
    };
    for (const auto& [path, name] : classes) {
        std::string rule = name->empty() ? "" : object_name_problem(*name, "PriorityClass");
        if (!rule.empty()) {
            return fail(spec.source.locate(path), rule, *name);
        }
    }
    std::string rule = gang.queue.empty() ? "" : object_name_problem(gang.queue, "queue");
    if (!rule.empty()) {
        return fail(spec.source.locate("runPolicy.schedulingPolicy.queue"), rule, gang.queue);
    }
    return util::ok_status();
}

// Check the Kueue fields: names a label can carry, a priority class only with a queue, and
// Kueue's labels set through queue and priorityClass, never through labels.
Status check_queue(const JobSpec& spec) {
    struct Name {
        const char* path;
        const char* what;
        const std::string* name;
    };
    const Name names[] = {{"queue", "LocalQueue", &spec.queue},
                          {"priorityClass", "WorkloadPriorityClass", &spec.queue_priority_class}};
    for (const auto& [path, what, name] : names) {
        if (name->empty()) {
            continue;
        }
        std::string rule = object_name_problem(*name, what);
        if (rule.empty()) {
            rule = label_value_problem(*name);
        }
        if (!rule.empty()) {
            return fail(spec.source.locate(path), rule, *name);
        }
    }
    if (spec.queue.empty() && !spec.queue_priority_class.empty()) {
        return fail(spec.source.locate("priorityClass"),
                    "needs queue (--queue): Kueue reads the priority class of queued jobs only",
                    spec.queue_priority_class);
    }
    for (const char* label : {k_queue_label, k_queue_priority_label}) {
        if (spec.labels.count(label) > 0) {
            return fail(
                locate_key(spec, "labels", label),
                fmt::format("set by {} (queue: and priorityClass: in the job file, or "
                            "--queue and --priority-class), not by labels",
                            label == std::string(k_queue_label) ? "queue" : "priorityClass"),
                spec.labels.at(label));
        }
    }
    return util::ok_status();
}

Status check_secret_refs(const JobSpec& spec) {
    for (const auto& [name, var] : spec.env) {
        if (var.secret_name.empty() && var.secret_key.empty()) {
            continue;
        }
        const std::string at = "env." + name + ".secretKeyRef.";
        if (std::string rule = object_name_problem(var.secret_name, "Secret"); !rule.empty()) {
            return fail(spec.source.locate(at + "name"), rule, var.secret_name);
        }
        if (std::string rule = secret_key_problem(var.secret_key); !rule.empty()) {
            return fail(spec.source.locate(at + "key"), rule, var.secret_key);
        }
    }
    const std::string& mlflow = spec.mlflow.credentials_secret;
    std::string mlflow_rule = mlflow.empty() ? "" : object_name_problem(mlflow, "Secret");
    if (!mlflow_rule.empty()) {
        return fail(spec.source.locate("mlflow.credentialsSecret"), mlflow_rule, mlflow);
    }
    for (size_t i = 0; i < spec.image_pull_secrets.size(); ++i) {
        const std::string& secret = spec.image_pull_secrets[i];
        if (std::string rule = object_name_problem(secret, "Secret"); !rule.empty()) {
            return fail(spec.source.locate(fmt::format("imagePullSecrets[{}]", i)), rule, secret);
        }
    }
    return util::ok_status();
}

Status check_volume_sources(const JobSpec& spec) {
    for (size_t i = 0; i < spec.volumes.size(); ++i) {
        const Volume& v = spec.volumes[i];
        const bool claim = !v.claim.empty();
        const std::string& name = claim ? v.claim : v.config_map;
        std::string rule =
            name.empty() ? ""
                         : object_name_problem(name, claim ? "PersistentVolumeClaim" : "ConfigMap");
        if (!rule.empty()) {
            std::string path = fmt::format("volumes[{}].{}", i, claim ? "claim" : "configMap");
            return fail(spec.source.locate(path), rule, name);
        }
    }
    if (std::string rule = image_problem(spec.image); !rule.empty()) {
        return fail(spec.source.locate("image"), rule, fmt::format("\"{}\"", spec.image));
    }
    return util::ok_status();
}

}  // namespace

std::string locate_map_key(const SourceMap& source, const std::string& map,
                           const std::string& key) {
    // A key that needs no quotes: [A-Za-z0-9_][-A-Za-z0-9_]*, scanned rather than matched
    // with std::regex, whose recursion overflows the stack on a key of 100 KB.
    const auto word = [](unsigned char c) { return std::isalnum(c) != 0 || c == '_'; };
    const bool plain = !key.empty() && key[0] != '-' &&
                       std::all_of(key.begin(), key.end(),
                                   [&word](unsigned char c) { return word(c) || c == '-'; });
    const std::string raw = map + "." + key;
    std::string where = source.locate(raw);
    if (plain) {
        return where;
    }
    const bool ends_with_raw = where.size() >= raw.size() &&
                               where.compare(where.size() - raw.size(), raw.size(), raw) == 0;
    if (ends_with_raw) {
        where.replace(where.size() - raw.size(), raw.size(), fmt::format("{}.\"{}\"", map, key));
    }
    return where;
}

Status check_kubernetes_rules(const JobSpec& spec) {
    for (auto check :
         {check_metadata, check_scheduling, check_queue, check_secret_refs, check_volume_sources}) {
        if (auto checked = check(spec); !checked) {
            return checked;
        }
    }
    return util::ok_status();
}

}  // namespace kftrain::manifest
