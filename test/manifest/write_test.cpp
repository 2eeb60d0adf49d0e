// The job file's writer (manifest/write.h) against its reader: every key the schema knows is
// read, written and read back equal.
#include "manifest/write.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "manifest/schema.h"
#include "manifest/yaml/emit.h"
#include "support/files.h"
#include "support/jobs.h"
#include "support/paths.h"

namespace {

using kftrain::manifest::FieldDef;
using kftrain::manifest::FieldType;
using kftrain::manifest::JobSpec;

std::string join_strings(const std::vector<std::string>& values) {
    return fmt::format("[{}]", fmt::join(values, "|"));
}

template <typename T>
std::string optional_text(const std::optional<T>& value) {
    return value ? fmt::format("{}", *value) : "unset";
}

template <typename Entries>
std::string entries_text(const Entries& entries) {
    std::string out = "{";
    for (const auto& [key, value] : entries) {
        out += fmt::format("{}:{}|", key, value);
    }
    return out + "}";
}

// The members from kind to the trainer's keys, one "member=value" line each.
std::string workload_fields_text(const JobSpec& s) {
    std::string out = fmt::format(
        "kind={}\nruntime={} namespaced={}\nname={}\nnamespace={}\nbackend={}\nimage={}\n"
        "imagePullPolicy={}\nimagePullSecrets={}\ncommand={}\nargs={}\nreplicas={}\n",
        kftrain::manifest::kind_name(s.kind), s.runtime, s.runtime_namespaced, s.name, s.namespace_,
        s.backend, s.image, s.image_pull_policy, join_strings(s.image_pull_secrets),
        join_strings(s.command), s.args ? join_strings(*s.args) : "unset", s.replicas);
    out += s.roles ? fmt::format("roles={} {} {} {}\n", s.roles->chief, s.roles->worker,
                                 s.roles->ps, s.roles->evaluator)
                   : "roles=unset\n";
    const auto& r = s.resources;
    out += fmt::format("nprocPerNode={}\nrestartPolicy={}\nresources={} {} {} {} {}\n",
                       s.nproc_per_node, s.restart_policy, r.cpu, r.memory, r.gpus, r.cpu_limit,
                       r.memory_limit);
    for (const auto& [name, var] : s.env) {
        out += fmt::format("env.{}={} secret={}/{} optional={}\n", name, var.value, var.secret_name,
                           var.secret_key, var.optional);
    }
    out += "trainer=" + entries_text(s.trainer) + "\n";
    return out;
}

// The members from mlflow to the end, one "member=value" line each.
std::string placement_fields_text(const JobSpec& s) {
    std::string out = fmt::format("mlflow={} {} {} {}\nmetrics={} {}\n", s.mlflow.tracking_uri,
                                  s.mlflow.experiment, s.mlflow.run_name,
                                  s.mlflow.credentials_secret, s.metrics.port, s.metrics.path);
    for (const auto& v : s.volumes) {
        out += fmt::format("volume={} {} {} {} {} {} {} items={}\n", v.name, v.claim, v.config_map,
                           v.mount_path, v.read_only, v.local_path, v.scratch, v.items.size());
    }
    out += fmt::format("code={} {} {}\nworkingDir={}\n", s.code.path, s.code.mount_path,
                       join_strings(s.code.exclude), s.working_dir);
    const auto& p = s.run_policy;
    out += fmt::format("runPolicy={} {} {} {} {} {} {} {}\n", optional_text(p.backoff_limit),
                       optional_text(p.active_deadline_seconds),
                       optional_text(p.ttl_seconds_after_finished), p.clean_pod_policy, p.suspend,
                       optional_text(p.scheduling.min_available), p.scheduling.queue,
                       p.scheduling.priority_class);
    if (const auto& e = s.elastic_policy) {
        out += fmt::format("elasticPolicy={} {} {} {}\n", optional_text(e->min_replicas),
                           optional_text(e->max_replicas), optional_text(e->max_restarts),
                           e->rdzv_backend);
    }
    for (const auto& t : s.tolerations) {
        out += fmt::format("toleration={} {} {} {} {}\n", t.key, t.op, t.value, t.effect,
                           optional_text(t.seconds));
    }
    out += fmt::format(
        "nodeSelector={}\npriorityClassName={}\nqueue={}\npriorityClass={}\nlabels={}\n"
        "annotations={}\n",
        entries_text(s.node_selector), s.priority_class_name, s.queue, s.queue_priority_class,
        entries_text(s.labels), entries_text(s.annotations));
    const auto& u = s.tune;
    out += fmt::format("tune={} {} {} {} {} {} {} {}\n", entries_text(u.params), u.name,
                       u.objective, optional_text(u.goal), optional_text(u.max_trials),
                       optional_text(u.parallel), optional_text(u.max_failed_trials), u.algorithm);
    return out;
}

// Every member of a spec that loading sets (where each came from, source, aside): two specs
// of equal text are the same job.
std::string spec_fields_text(const JobSpec& spec) {
    return workload_fields_text(spec) + placement_fields_text(spec);
}

// A key the schema knows that holds a value (no Object): its dotted name, and the list it is a
// key of the items of ("volumes" for volumes.claim), if any.
struct SchemaLeaf {
    std::string path;
    const FieldDef* def;
    std::string list;
};

void collect_schema_leaves(const FieldDef& def, const std::string& prefix, const std::string& list,
                           std::vector<SchemaLeaf>& out) {
    for (const auto& child : def.children) {
        const std::string path = prefix.empty() ? child.name : prefix + "." + child.name;
        if (child.type == FieldType::Object) {
            collect_schema_leaves(child, path, list, out);
        } else if (child.type == FieldType::ObjectList) {
            collect_schema_leaves(child, path, path, out);
        } else {
            out.push_back({path, &child, list});
        }
    }
}

std::vector<SchemaLeaf> schema_leaves() {
    std::vector<SchemaLeaf> leaves;
    collect_schema_leaves(kftrain::manifest::job_schema(), "", "", leaves);
    return leaves;
}

// Return a value of the key's type that differs from its default, within its allowed values
// and range.
YAML::Node value_unlike_default(const FieldDef& def) {
    using kftrain::manifest::string_node;
    switch (def.type) {
        case FieldType::String:
            for (const auto& allowed : def.allowed) {
                if (allowed != def.default_text) {
                    return string_node(allowed);
                }
            }
            return string_node("alt");
        case FieldType::Int: {
            double value = def.min.value_or(0);
            if (fmt::format("{:.0f}", value) == def.default_text) {
                value += 1;
            }
            return YAML::Node(fmt::format("{:.0f}", value));
        }
        case FieldType::Float:
            return YAML::Node(def.default_text == "0.5" ? "0.25" : "0.5");
        case FieldType::Bool:
            return YAML::Node(def.default_text == "true" ? "false" : "true");
        case FieldType::Quantity:
            return string_node("3");
        case FieldType::StringList:
            return YAML::Load("[zeta, alpha]");
        case FieldType::StringMap:
            return YAML::Load("{zeta: v1, alpha: v2}");
        case FieldType::Env:
            return YAML::Load("{ZETA: v1, TOKEN: {secretKeyRef: {name: token, key: value}}}");
        default:
            return YAML::Node();
    }
}

// The keys that cannot be set alone, or not to the value their type gives: the value they
// get instead (YAML, "" for value_unlike_default's), the keys the file needs beside them
// (a YAML map, "" for none; for a key of a list's items, it replaces k_list_items'), and why.
struct KeyContext {
    const char* key;
    const char* value;
    const char* context;
    const char* why;
};

const KeyContext k_key_contexts[] = {
    {"roles.chief", "", "{kind: TFJob}", "only a TFJob has roles"},
    {"roles.worker", "", "{kind: TFJob}", "only a TFJob has roles"},
    {"roles.ps", "", "{kind: TFJob, roles: {worker: 1}}",
     "only a TFJob has roles, and it needs a chief or a worker"},
    {"roles.evaluator", "", "{kind: TFJob, roles: {worker: 1}}",
     "only a TFJob has roles, and it needs a chief or a worker"},
    {"nprocPerNode", "4", "", "auto, cpu, gpu or a number"},
    {"trainer.bucketMb", "\"2\"", "", "auto or a number of MiB"},
    {"mlflow.credentialsSecret", "", "{mlflow: {trackingUri: 'http://mlflow:5000'}}",
     "needs mlflow.trackingUri"},
    {"metrics.port", "", "{command: [python3]}",
     "describes a program of your own: kftrain-trainer's is trainer.metricsPort"},
    {"metrics.path", "/alt", "{command: [python3]}",
     "an absolute HTTP path, of a program of your own"},
    {"volumes.configMap", "", "{volumes: [{name: data, configMap: cm, mountPath: /data}]}",
     "a volume has exactly one of claim and configMap"},
    {"volumes.mountPath", "/alt", "", "an absolute path"},
    {"code.path", "", "{command: [python3]}",
     "code is a program of your own: kftrain-trainer runs none"},
    {"tolerations.tolerationSeconds", "", "{tolerations: [{key: gpu, effect: NoExecute}]}",
     "only a NoExecute toleration has seconds"},
    {"priorityClass", "", "{queue: team}", "Kueue's priority class needs queue"},
};

// The item a key of a list's items is set in: a valid one, so that the key alone differs.
struct ListItem {
    const char* list;
    const char* item;
    const char* why;
};

const ListItem k_list_items[] = {
    {"volumes", "{name: data, claim: data, mountPath: /data}",
     "a volume needs a name, one of claim and configMap, and a mountPath"},
    {"tolerations", "{key: gpu}", "an empty key tolerates every taint only with Exists"},
};

const KeyContext* key_context(const std::string& key) {
    for (const auto& context : k_key_contexts) {
        if (key == context.key) {
            return &context;
        }
    }
    return nullptr;
}

// Set a dotted key in a map, making the maps on its way.
void set_dotted(YAML::Node map, const std::string& dotted, const YAML::Node& value) {
    const size_t dot = dotted.find('.');
    if (dot == std::string::npos) {
        map[dotted] = value;
        return;
    }
    const std::string head = dotted.substr(0, dot);
    if (!map[head].IsMap()) {
        map[head] = YAML::Node(YAML::NodeType::Map);
    }
    set_dotted(map[head], dotted.substr(dot + 1), value);
}

// The job file a key is tried in, without the key: a name, and what the key needs beside it.
YAML::Node file_without(const SchemaLeaf& leaf) {
    const KeyContext* context = key_context(leaf.path);
    YAML::Node root = context != nullptr && *context->context != '\0'
                          ? YAML::Load(context->context)
                          : YAML::Node(YAML::NodeType::Map);
    root["name"] = "rt";
    if (!leaf.list.empty() && !root[leaf.list].IsDefined()) {
        for (const auto& item : k_list_items) {
            if (leaf.list == item.list) {
                root[leaf.list].push_back(YAML::Load(item.item));
            }
        }
    }
    return root;
}

// The job file with the key set to a value unlike its default.
YAML::Node file_with(const SchemaLeaf& leaf) {
    YAML::Node root = YAML::Clone(file_without(leaf));
    const KeyContext* context = key_context(leaf.path);
    const YAML::Node value = context != nullptr && *context->value != '\0'
                                 ? YAML::Load(context->value)
                                 : value_unlike_default(*leaf.def);
    if (leaf.list.empty()) {
        set_dotted(root, leaf.path, value);
    } else {
        root[leaf.list][0][leaf.path.substr(leaf.list.size() + 1)] = value;
    }
    return root;
}

// Return where a written map's keys leave the schema's order ("" where they keep it).
std::string schema_order_problem(const YAML::Node& node, const FieldDef& def,
                                 const std::string& path) {
    if (def.type == FieldType::ObjectList && node.IsSequence()) {
        FieldDef item = def;
        item.type = FieldType::Object;
        for (const auto& element : node) {
            if (auto problem = schema_order_problem(element, item, path); !problem.empty()) {
                return problem;
            }
        }
        return "";
    }
    if (def.type != FieldType::Object || !node.IsMap()) {
        return "";
    }
    size_t next = 0;
    for (const auto& entry : node) {
        const std::string key = entry.first.Scalar();
        size_t at = next;
        while (at < def.children.size() && def.children[at].name != key) {
            ++at;
        }
        const std::string child = path.empty() ? key : path + "." + key;
        if (at == def.children.size()) {
            return child + " is out of the schema's order (or not in it)";
        }
        if (auto problem = schema_order_problem(entry.second, def.children[at], child);
            !problem.empty()) {
            return problem;
        }
        next = at + 1;
    }
    return "";
}

// Write a loaded spec, load what was written and check it is the same job, its keys in the
// schema's order; what names the spec in messages.
void check_written_back(const JobSpec& spec, const std::string& what) {
    const std::string written = kftrain::manifest::write_job_file(spec);
    INFO(what << " written as:\n" << written);
    auto reloaded = kftrain::test::try_load_job(written);
    if (!reloaded) {
        FAIL_CHECK(what << ": the written job file does not load: " << reloaded.error());
        return;
    }
    if (spec_fields_text(*reloaded) != spec_fields_text(spec)) {
        FAIL_CHECK(what << ": read back unlike it was (manifest/write.cpp does not write it, "
                           "or writes it otherwise)\nloaded:\n"
                        << spec_fields_text(spec) << "read back:\n"
                        << spec_fields_text(*reloaded));
    }
    const std::string order =
        schema_order_problem(YAML::Load(written), kftrain::manifest::job_schema(), "");
    if (!order.empty()) {
        FAIL_CHECK(what << ": " << order);
    }
}

}  // namespace

TEST_CASE("every key of the schema is read, written and read back equal", "[manifest]") {
    const auto leaves = schema_leaves();
    REQUIRE(leaves.size() > 90);
    for (const auto& leaf : leaves) {
        const std::string without = kftrain::manifest::to_yaml(file_without(leaf));
        const std::string with = kftrain::manifest::to_yaml(file_with(leaf));
        INFO(leaf.path << ": the job file without it:\n" << without << "with it:\n" << with);
        auto base = kftrain::test::try_load_job(without);
        auto set = kftrain::test::try_load_job(with);
        if (!base || !set) {
            FAIL_CHECK(leaf.path << ": does not load (give it a value or the keys it needs in "
                                    "k_key_contexts): "
                                 << (base ? set.error() : base.error()));
            continue;
        }
        if (spec_fields_text(*set) == spec_fields_text(*base)) {
            FAIL_CHECK(leaf.path << ": loads the same as a file without it (manifest/convert.cpp "
                                    "does not read it)");
            continue;
        }
        check_written_back(*set, leaf.path);
    }
}

TEST_CASE("the keys set with others beside them, and the lists' items, are keys of the schema",
          "[manifest]") {
    for (const auto& context : k_key_contexts) {
        INFO(context.key << " (" << context.why << ")");
        CHECK(kftrain::manifest::find_field(context.key) != nullptr);
    }
    for (const auto& item : k_list_items) {
        INFO(item.list << " (" << item.why << ")");
        REQUIRE(kftrain::manifest::find_field(item.list) != nullptr);
        CHECK(kftrain::manifest::find_field(item.list)->type == FieldType::ObjectList);
    }
}

TEST_CASE("the writer leaves out what a file without the key loads as, and pins nothing",
          "[manifest]") {
    // What the writer compares with, JobSpec{}, is what a file of a name alone loads as.
    JobSpec named;
    named.name = "rt";
    CHECK(spec_fields_text(kftrain::test::load_job("name: rt\n")) == spec_fields_text(named));
    CHECK(kftrain::manifest::write_job_file(named) == "name: rt\n");

    // An image named at its default stays named: a job that ships code and names none runs
    // its framework's image instead.
    auto image = kftrain::test::load_job("name: rt\nimage: kftrain/trainer:latest\n");
    CHECK(kftrain::manifest::write_job_file(image) == "name: rt\nimage: kftrain/trainer:latest\n");
    // A TFJob's replicas are the total of its roles without the key.
    auto roles = kftrain::test::load_job("name: rt\nkind: TFJob\nroles: {chief: 1, worker: 3}\n");
    CHECK(kftrain::manifest::write_job_file(roles) ==
          "kind: TFJob\nname: rt\nroles:\n  chief: 1\n  worker: 3\n");
    // Strings YAML would read as another type are quoted; numbers as the schema types them.
    auto typed = kftrain::test::load_job(
        "name: rt\nreplicas: 3\nenv: {A: 'yes', B: '0.1'}\ntune: {goal: 0.95}\n");
    CHECK(kftrain::manifest::write_job_file(typed) ==
          "name: rt\nreplicas: 3\nenv:\n  A: \"yes\"\n  B: \"0.1\"\ntune:\n  goal: 0.95\n");
}

TEST_CASE("a job of many keys at once is written and read back the same job", "[manifest]") {
    const std::string text = R"(kind: TrainJob
runtime: TrainingRuntime/torch-custom
name: many
namespace: team
image: registry.example/train:1
imagePullSecrets: [regcred]
command: [python3, train.py]
args: []
replicas: 4
nprocPerNode: gpu
resources: {cpu: 500m, memory: 8Gi, gpus: 1, limits: {cpu: "2"}}
env: {SEED: "7", TOKEN: {secretKeyRef: {name: hub, key: token}}}
mlflow: {trackingUri: "http://mlflow:5000", experiment: mnist}
volumes:
  - {name: data, claim: data, mountPath: /data, readOnly: true}
  - {name: cfg, configMap: cfg, mountPath: /etc/cfg}
code: {path: src, mountPath: /src, exclude: ["*.ckpt"]}
runPolicy: {activeDeadlineSeconds: 3600, suspend: true}
nodeSelector: {pool: gpu}
tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
queue: team-queue
priorityClass: high
labels: {team: ml}
annotations: {note: "on"}
tune: {params: {lr: "0.001:0.1:log", batch: "32,64"}, objective: "loss:minimize", maxTrials: 4}
)";
    check_written_back(kftrain::test::load_job(text), "the job of many keys");
}

TEST_CASE("the writer refuses nothing the loader accepted: every example job file round-trips",
          "[manifest]") {
    namespace fs = std::filesystem;
    int files = 0;
    const fs::path examples = fs::path(kftrain::test::source_dir()) / "examples";
    for (const auto& entry : fs::recursive_directory_iterator(examples)) {
        // prices.yaml is the price catalog, not a job file.
        if (entry.path().extension() != ".yaml" || entry.path().filename() == "prices.yaml") {
            continue;
        }
        auto spec = kftrain::manifest::load_job_file(entry.path().string(), {});
        INFO(entry.path().string());
        REQUIRE(spec);
        check_written_back(*spec, entry.path().string());
        ++files;
    }
    CHECK(files >= 10);
}
